#!/usr/bin/env python3
"""Prints the SigV4 signatures botocore computes for S3 requests, for the Swift signer's tests.

Reads a JSON object from standard input: {"accessKeyID", "secretAccessKey", "region",
"date": "YYYYMMDDTHHMMSSZ", "endpoint": "http://host:port", "requests": [{"method", "path"
(not encoded), "query": [[name, value]...], "headers": [[name, value]...], "body"}]}.
Writes a JSON list with, for each request in order, {"authorization", "canonicalRequest",
"headers"} as botocore's S3 signer (S3SigV4Auth, the one boto3's S3 client uses) leaves them.
The path and query are encoded with botocore's own percent_encode, as its S3 client does.
Run with the virtual environment `make s3-deps` makes: .build/s3-venv/bin/python.
"""
import datetime
import json
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.utils import percent_encode


def main():
    given = json.load(sys.stdin)
    moment = datetime.datetime.strptime(given["date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    # The signer asks this for "now"; the tests sign at a date of their choosing.
    botocore.auth.get_current_datetime = lambda *args, **kwargs: moment
    credentials = Credentials(given["accessKeyID"], given["secretAccessKey"])
    signer = botocore.auth.S3SigV4Auth(credentials, "s3", given["region"])
    canonical = []
    original = signer.canonical_request
    signer.canonical_request = lambda request: canonical.append(original(request)) or canonical[-1]
    answers = []
    for request in given["requests"]:
        url = given["endpoint"] + percent_encode(request["path"], safe="/~")
        if request["query"]:
            url += "?" + "&".join(f"{percent_encode(n)}={percent_encode(v)}" for n, v in request["query"])
        aws = AWSRequest(method=request["method"], url=url, data=request["body"].encode("utf-8"),
                         headers=dict(request["headers"]))
        signer.add_auth(aws)
        answers.append({
            "authorization": aws.headers["Authorization"],
            "canonicalRequest": canonical[-1],
            "headers": sorted([name.lower(), value] for name, value in aws.headers.items()),
        })
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
