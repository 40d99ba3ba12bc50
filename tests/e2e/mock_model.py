#!/usr/bin/env python3
"""A local stand-in for a model provider, for the end-to-end test.

Speaks the real wire formats on 127.0.0.1:
  POST /v1/messages          Anthropic Messages (text block, or a tool_use block when the
                             request forces a tool)
  POST /v1/chat/completions  OpenAI Chat Completions (also /chat/completions)
  POST /api/chat             Ollama

The answer depends on the user's request found in the last user message:
  "case:NAME"                    -> the plan of case NAME in --cases (a JSONL file of
                                    {"name", "plan"}; "{{D}}" in it becomes --dir)
  "font bigger" ... "word wrap"  -> set wrap = true, plus an unknown setting "fontsize"
                                    (the validator drops it; the window lists why)
  "leash-e2e"                    -> one terminal step: echo leash-e2e > <--echo-file>
  "e2e-plan:NAME"                -> the scripted plan NAME (scripted_plans.py), markers
                                    written next to <--echo-file>
anything else                     -> a plan with no steps.

Every request is appended as one JSON line to --log. The chosen port is written to
--port-file once the socket listens (port 0 = any free port).
"""

import argparse
import json
import os
import re
import sys
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from scripted_plans import scripted_plan


def case_plan(request_text, cases, directory):
    """The scripted plan of the case named in the request ("case:NAME"), or None."""
    m = re.search(r"case:([A-Za-z0-9_.-]+)", request_text)
    if not m or m.group(1) not in cases:
        return None
    return json.loads(json.dumps(cases[m.group(1)]).replace("{{D}}", directory.replace("\\", "/")))


def plan_for(request_text, echo_file, cases=None, directory=""):
    scripted = case_plan(request_text, cases or {}, directory)
    if scripted is None:
        scripted = scripted_plan(request_text, os.path.dirname(os.path.abspath(echo_file)))
    if scripted is not None:
        # A scripted plan may ask to be slow, as a local model is.
        delay = scripted.pop("_delay_s", 0) if isinstance(scripted, dict) else 0
        if delay:
            time.sleep(delay)
        return scripted
    text = request_text.lower()
    if "leash-e2e" in text:
        return {
            "reply": "Writing the marker file from a terminal.",
            "steps": [
                {
                    "type": "terminal",
                    "command": "echo leash-e2e > %s" % echo_file,
                    "why": "the end-to-end test asked for it",
                }
            ],
        }
    if "font" in text and "wrap" in text:
        return {
            "reply": "Turning on word wrap; the font size of a terminal is set by the terminal itself.",
            "steps": [
                {"type": "setting", "key": "wrap", "value": True, "why": "wrap long lines at the window edge"},
                {"type": "setting", "key": "fontsize", "value": 16, "why": "bigger font"},
            ],
        }
    return {"reply": "I found nothing to do for that.", "steps": []}


def user_text(messages):
    """The text of the last user message (string or list-of-blocks content)."""
    for m in reversed(messages or []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            return c
        if isinstance(c, list):
            return "".join(b.get("text", "") for b in c if isinstance(b, dict))
    return ""


def request_of(user):
    """The user's request inside the prompt's user message (falls back to all of it)."""
    for line in user.splitlines():
        low = line.lower()
        if low.startswith("request:") or low.startswith("user request:"):
            return line.split(":", 1)[1]
    return user


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the test prints what matters
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled the request (a newer :Do): nobody reads this answer

    def do_GET(self):
        self.reply(200, {"ok": True}) if self.path == "/health" else self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.reply(400, {"error": {"type": "invalid_request_error", "message": "body is not JSON"}})
        user = user_text(body.get("messages"))
        plan = plan_for(request_of(user), self.server.echo_file, self.server.cases, self.server.directory)
        with open(self.server.log, "a") as f:
            f.write(json.dumps({"time": time.time(), "path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        path = self.path.split("?", 1)[0]
        model = body.get("model", "mock")
        if path.endswith("/v1/messages") or path.endswith("/messages"):
            if self.headers.get("anthropic-version") is None:
                return self.reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "anthropic-version header is required"}})
            forced = (body.get("tool_choice") or {}).get("name")
            if forced:
                content = [{"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": forced, "input": plan}]
                stop = "tool_use"
            else:
                content = [{"type": "text", "text": json.dumps(plan)}]
                stop = "end_turn"
            return self.reply(200, {
                "id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": len(user) // 4, "output_tokens": 40},
            })
        if path.endswith("/chat/completions"):
            return self.reply(200, {
                "id": "chatcmpl-" + uuid.uuid4().hex[:24], "object": "chat.completion", "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(plan)}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": 40, "total_tokens": len(user) // 4 + 40},
            })
        if path.endswith("/api/chat"):
            return self.reply(200, {
                "model": model, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "message": {"role": "assistant", "content": json.dumps(plan)}, "done": True, "done_reason": "stop",
            })
        return self.reply(404, {"error": "no such endpoint: " + path})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--echo-file", required=True, help="file the terminal-step plan writes to")
    ap.add_argument("--log", required=True, help="requests are appended here, one JSON object a line")
    ap.add_argument("--cases", help='JSONL of {"name", "plan"}: "case:NAME" in a request answers that plan')
    ap.add_argument("--dir", default="", help='what "{{D}}" in a case plan stands for')
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.echo_file = args.echo_file
    server.log = args.log
    server.directory = args.dir
    server.cases = {}
    if args.cases:
        with open(args.cases) as f:
            for line in f:
                if line.strip():
                    case = json.loads(line)
                    server.cases[case["name"]] = case["plan"]
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
