#!/usr/bin/env python3
"""A local stand-in for a GitHub release download server, for tests of the prebuilt path.

    release_server.py ROOT

Serves ROOT on 127.0.0.1 (a free port, printed as the first line of stdout) under four
prefixes, each a release download root as leash sees it:

    /good/<tag>/<asset>       the file ROOT/<tag>/<asset>
    /corrupt/<tag>/<asset>    the same file with one byte changed
    /slow/<tag>/<asset>       the same file, 1 KB per second
    /missing/<tag>/<asset>    404, as for a release without that asset

`<asset>.sha256` is the SHA-256 of ROOT/<tag>/<asset> in `sha256sum` format, computed
here with hashlib (independently of leash's own SHA-256) unless the file exists in ROOT.
Every request is logged to stderr.
"""

import hashlib
import http.server
import os
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."

    def do_GET(self):
        parts = self.path.lstrip("/").split("/", 1)
        mode, rest = parts[0], parts[1] if len(parts) > 1 else ""
        if mode not in ("good", "corrupt", "slow") or ".." in rest:
            return self.send_error(404)
        path = os.path.join(self.root, rest)
        if rest.endswith(".sha256") and not os.path.exists(path):
            lib = path[: -len(".sha256")]
            if not os.path.isfile(lib):
                return self.send_error(404)
            with open(lib, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            return self.reply(f"{digest}  {os.path.basename(lib)}\n".encode())
        if not os.path.isfile(path):
            return self.send_error(404)
        with open(path, "rb") as f:
            data = f.read()
        if mode == "corrupt" and not rest.endswith(".sha256"):
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]
        if mode == "slow" and not rest.endswith(".sha256"):
            return self.reply(data, chunk=1024, pause=1.0)
        self.reply(data)

    def reply(self, data, chunk=None, pause=0.0):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            if chunk is None:
                self.wfile.write(data)
                return
            for i in range(0, len(data), chunk):
                self.wfile.write(data[i : i + chunk])
                self.wfile.flush()
                time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a deadline), as intended

    def log_message(self, fmt, *args):
        sys.stderr.write("release_server: " + (fmt % args) + "\n")


def main():
    Handler.root = os.path.abspath(sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
