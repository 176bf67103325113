"""Python requests or httpx through HTTPS_PROXY, trusting the bundle of `idemproxy ca bundle`
(REQUESTS_CA_BUNDLE for requests, SSL_CERT_FILE for httpx). A first POST times out, then the same
call again. Usage: python-retry.py requests|httpx URL KEY BODY"""
import sys

client, url, key, body = sys.argv[1:5]
headers = {"Content-Type": "application/json", "Idempotency-Key": key}

if client == "requests":
    import requests

    def call(timeout):
        return requests.post(url, data=body, headers=headers, timeout=timeout)

    timeouts = (requests.exceptions.Timeout,)
else:
    import httpx

    def call(timeout):
        with httpx.Client(timeout=timeout) as c:  # trust_env: HTTPS_PROXY and SSL_CERT_FILE
            return c.post(url, content=body, headers=headers)

    timeouts = (httpx.TimeoutException,)

try:
    r = call(2)
    print("NO-TIMEOUT", r.status_code, flush=True)
except timeouts:
    print("TIMEOUT", flush=True)
except Exception as e:  # noqa: BLE001 - the test prints what went wrong
    print("ERROR", type(e).__name__, e, flush=True)
r = call(30)
print("STATUS", r.status_code)
print("REPLAYED", r.headers.get("Idempotent-Replayed"))
print("BODY", r.text, flush=True)
