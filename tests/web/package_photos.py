"""The real photographs the web tests drop: mate-backgrounds' nature pictures, the files the
package ships (dpkg's list of them), not whatever else has been written into their folder."""
import os
import subprocess
import sys

FOLDER = "/usr/share/backgrounds/mate/nature"


def smallest(count):
    """The package's `count` smallest JPEGs (quick to ingest), smallest first; exits saying what
    to install when there are fewer."""
    listed = subprocess.run(["dpkg-query", "-L", "mate-backgrounds"], capture_output=True, text=True).stdout.splitlines()
    names = sorted((os.path.basename(p) for p in listed if os.path.dirname(p) == FOLDER and p.lower().endswith(".jpg")),
                   key=lambda n: os.path.getsize(os.path.join(FOLDER, n)))
    if len(names) < count:
        sys.exit(f"web test: fewer than {count} photos in {FOLDER} (install mate-backgrounds: make test-deps)")
    return [os.path.join(FOLDER, n) for n in names[:count]]
