#!/usr/bin/env python3
"""The JSON API against its OpenAPI document, with tools from PyPI, on a real utensild.

1. The document served at /api/v1/openapi.json is a valid OpenAPI 3.1 document
   (openapi-spec-validator).
2. Every documented operation answers as documented: schemathesis sends requests made from
   the document (valid and invalid ones, signed in for the upload) and checks status codes,
   content types, headers and every JSON body against the schemas.
3. The event stream's objects match the document's `Event` schema (jsonschema).
4. A client generated from the document (openapi-python-client) lists the utensils.

Usage: openapi_test.py BINARIES-FOLDER WORK-FOLDER
Prints one line per check and closes with "N passed, M failed"; exits 1 on any failure.
"""
import http.cookiejar
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import package_photos

PASSWORD = "correct horse battery"
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok    " if condition else "FAIL  ") + name + ("" if condition or not detail else f": {detail}"), flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def tool(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(path):
        sys.exit(f"openapi test: {path} is missing (make openapi-test installs it)")
    return path


def start_daemon(binaries, root, port):
    inbox = os.path.join(root, "inbox")
    users = os.path.join(root, "web-users")
    os.makedirs(inbox)
    add = subprocess.run([os.path.join(binaries, "utensilctl"), "web-user", "add", "alice", "--users-file", users],
                         input=PASSWORD + "\n", text=True, capture_output=True)
    if add.returncode != 0:
        sys.exit("openapi test: utensilctl web-user add failed: " + add.stderr)
    env = {k: v for k, v in os.environ.items() if not k.startswith("UTENSILD_") and k != "NOTIFY_SOCKET"}
    env["SYSTEMD_LOG_TARGET"] = "console"
    log = open(os.path.join(root, "utensild.log"), "wb")
    process = subprocess.Popen(
        [os.path.join(binaries, "utensild"), "--config", "/dev/null", "--inbox", inbox,
         "--state-dir", os.path.join(root, "state"), "--control-socket", os.path.join(root, "control.sock"),
         "--settle-seconds", "0.2", "--web-listen", f"127.0.0.1:{port}", "--web-users-file", users],
        stdout=log, stderr=log, env=env)
    return process, inbox


def get_json(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as reply:
        return json.load(reply)


def wait_for(what, predicate, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except OSError:
            pass
        time.sleep(0.1)
    print(f"openapi test: timed out waiting for {what}", flush=True)
    return False


def session_token(base):
    """Signs in as alice through POST /login; the session cookie's value."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = urllib.parse.urlencode({"name": "alice", "password": PASSWORD}).encode()
    opener.open(urllib.request.Request(base + "/login", data=form, method="POST"), timeout=30)
    return next(c.value for c in jar if c.name == "utensild_session")


def first_events(base, count, trigger):
    """The first `count` event objects of /api/v1/events after `trigger()` runs."""
    events = []
    reply = urllib.request.urlopen(base + "/api/v1/events", timeout=60)
    done = threading.Event()

    def read():
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
                if len(events) >= count:
                    break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    trigger()
    done.wait(60)
    reply.close()
    return events


def main():
    binaries, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    root = tempfile.mkdtemp(prefix="utensil-openapi-", dir=work)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    photos = package_photos.smallest(2)
    process, inbox = start_daemon(binaries, root, port)
    try:
        if not wait_for("the gallery to answer", lambda: get_json(base, "/api/v1/status")):
            sys.exit(1)
        shutil.copy(photos[0], os.path.join(inbox, "Whisk.jpg"))
        check("a drop is ingested", wait_for("the drop", lambda: get_json(base, "/api/v1/status")["ingested"] == 1))

        document_path = os.path.join(root, "openapi.json")
        with urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=10) as reply:
            document = json.load(reply)
        with open(document_path, "w") as file:
            json.dump(document, file)
        check("GET /api/v1/openapi.json is an OpenAPI 3.1 document", document.get("openapi", "").startswith("3.1"))
        validated = subprocess.run([tool("openapi-spec-validator"), document_path], capture_output=True, text=True)
        check("openapi-spec-validator accepts it", validated.returncode == 0, validated.stdout + validated.stderr)

        import jsonschema
        components = {"components": document["components"]}
        event_schema = dict(document["components"]["schemas"]["Event"], **components)
        events = first_events(base, 1, lambda: shutil.copy(photos[1], os.path.join(inbox, "Ladle.jpg")))
        check("the event stream carries an event", len(events) == 1, f"{events}")
        for event in events:
            errors = [e.message for e in jsonschema.Draft202012Validator(event_schema).iter_errors(event)]
            check("an event matches the Event schema", not errors, "; ".join(errors))

        # Every operation but the endless event stream, signed in (for the upload). A request
        # valid by the schemas may still be refused with 400 (a cursor this daemon did not hand
        # out) or 404 (an id no utensil has): both are documented answers. The fields of a
        # multipart upload are text: a "wrong type" there (an object where a string is due) is
        # text the daemon cannot tell apart, so that one check is off for the upload.
        config = os.path.join(root, "schemathesis.toml")
        with open(config, "w") as file:
            file.write('[checks.positive_data_acceptance]\nexpected-statuses = ["2xx", "400", "404"]\n'
                       f'[auth.openapi.session]\napi_key = "{session_token(base)}"\n'
                       '[[operations]]\ninclude-path = "/api/v1/uploads"\n'
                       '[operations.checks.negative_data_rejection]\nenabled = false\n')
        run = subprocess.run(
            [tool("schemathesis"), "--config-file", config, "run", base + "/api/v1/openapi.json", "--url", base,
             "--exclude-path", "/api/v1/events",
             "--max-examples", "40", "--request-timeout", "30", "--no-color"],
            capture_output=True, text=True, cwd=root)
        summary = [line for line in run.stdout.splitlines() if "passed" in line or "failure" in line or "error" in line]
        check("every documented operation answers as documented (schemathesis)", run.returncode == 0,
              run.stdout[-6000:] + run.stderr[-2000:])
        print("      " + (summary[-1].strip("= ") if summary else "(no summary)"), flush=True)
        check("the daemon is still running after schemathesis", process.poll() is None)

        generated = subprocess.run(
            [tool("openapi-python-client"), "generate", "--path", document_path, "--output-path",
             os.path.join(root, "client"), "--meta", "none", "--overwrite"],
            capture_output=True, text=True, cwd=root)
        check("openapi-python-client generates a client", generated.returncode == 0, generated.stdout + generated.stderr)
        if generated.returncode == 0:
            sys.path.insert(0, root)
            from client import Client
            from client.api.default import list_utensils
            page = list_utensils.sync(client=Client(base_url=base), limit=10)
            names = sorted(u.name for u in page.utensils) if page else []
            check("the generated client lists the utensils", names == ["Ladle", "Whisk"], f"{names}")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
    passed, failed = results.count(True), results.count(False)
    print(f"{passed} passed, {failed} failed", flush=True)
    if failed:
        print(f"openapi test: the daemon's log is {root}/utensild.log", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
