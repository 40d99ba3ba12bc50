"""An agent for tests/e2e/mcp.sh: the official MCP Python SDK (PyPI `mcp`) starts
`leash mcp --server ADDR` and calls its tools, while this script watches the Neovim in
tmux and presses keys in it as the person would.

Each check prints `mcp e2e: ok: ...`; the first that fails raises, with the screen.
"""

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time

from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

args = argparse.ArgumentParser()
args.add_argument("--leash", required=True)
args.add_argument("--server", required=True)
args.add_argument("--bare-server", required=True, help="a Neovim without leash")
args.add_argument("--tmux", required=True)
args.add_argument("--session", required=True)
args.add_argument("--tmp", required=True)
args.add_argument("--pid-file", required=True)
opts = args.parse_args()


class Failed(Exception):
    pass


# The plan window's title in its border (a notification may name the agent too).
TITLE = "─ plan from e2e-agent ─"


def screen() -> str:
    return subprocess.run(
        ["tmux", "-L", opts.tmux, "capture-pane", "-p", "-t", opts.session], capture_output=True, text=True
    ).stdout


def keys(*k: str) -> None:
    subprocess.run(["tmux", "-L", opts.tmux, "send-keys", "-t", opts.session, *k], check=True)


def fail(what: str) -> None:
    raise Failed(f"{what}\n---- screen ----\n{screen()}----------------")


async def wait_screen(text: str, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in screen():
            return True
        await asyncio.sleep(0.1)
    return False


def ok(what: str) -> None:
    print(f"mcp e2e: ok: {what}", flush=True)


def result_of(r) -> dict:
    """The structured result of a tool call (the text content carries the same JSON)."""
    if r.structured_content is not None:
        return r.structured_content
    return json.loads(r.content[0].text)


def text_of(r) -> str:
    return "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")


def session_for(server: str):
    params = StdioServerParameters(command=opts.leash, args=["mcp", "--server", server])
    return stdio_client(params)


def session_by_env(nvim: str | None):
    """`leash mcp` without --server, as an agent in Neovim's :terminal starts it: the
    SDK passes on only a few variables (as Codex does), and $NVIM only when given."""
    env = get_default_environment()
    if nvim is not None:
        env["NVIM"] = nvim
    return stdio_client(StdioServerParameters(command=opts.leash, args=["mcp"], env=env))


async def propose(session: ClientSession, plan: dict, timeout: float = 60, progress=None):
    return asyncio.create_task(
        session.call_tool("propose_plan", {"plan": plan}, read_timeout_seconds=timeout, progress_callback=progress)
    )


async def decided(task, seconds: float = 20):
    try:
        return await asyncio.wait_for(task, seconds)
    except asyncio.TimeoutError:
        fail("propose_plan did not return after the person decided")


async def main() -> None:
    ran_file = os.path.join(opts.tmp, "ran.txt")
    never_file = os.path.join(opts.tmp, "never.txt")
    async with session_for(opts.server) as (read, write):
        async with ClientSession(read, write, client_info=Implementation(name="e2e-agent", version="1.0")) as s:
            init = await s.initialize()
            if init.server_info.name != "leash":
                fail(f"the server calls itself {init.server_info.name}")

            # 1. the tools, by name and shape
            tools = {t.name: t for t in (await s.list_tools()).tools}
            if sorted(tools) != ["catalog_search", "editor_state", "propose_plan"]:
                fail(f"tools/list gave {sorted(tools)}")
            if tools["propose_plan"].input_schema.get("required") != ["plan"]:
                fail(f"propose_plan's schema: {tools['propose_plan'].input_schema}")
            for t in tools.values():
                try:
                    Draft202012Validator.check_schema(t.input_schema)
                except Exception as e:
                    fail(f"{t.name}'s input schema is not valid JSON Schema: {e}")
            plan_schema = Draft202012Validator(tools["propose_plan"].input_schema)
            good = {"plan": {"steps": [{"type": "setting", "key": "tabstop", "value": 4}]}}
            if list(plan_schema.iter_errors(good)) or not list(plan_schema.iter_errors({"plan": "wrap"})):
                fail("propose_plan's schema does not take a plan, or takes a string for one")
            ok("tools/list names catalog_search, propose_plan and editor_state, with valid JSON Schemas")

            # 2. a search of the live catalog
            found = result_of(await s.call_tool("catalog_search", {"request": "show line numbers", "limit": 10}))
            number = next((r for r in found["results"] if r.get("key") == "number"), None)
            if not number:
                fail(f"catalog_search did not find 'number': {found}")
            if (number["type"], number["current"], number["reach"]) != ("boolean", False, "safe"):
                fail(f"the 'number' result: {number}")
            term = result_of(await s.call_tool("catalog_search", {"request": "run a shell command in a terminal"}))
            run = next((r for r in term["results"] if r.get("id") == "term:run"), None)
            if not run or run["reach"] != "shell":
                fail(f"term:run is not found as shell: {term}")
            bad = await s.call_tool("catalog_search", {"request": "wrap", "limit": 1000})
            if not bad.is_error or "from 1 to 100" not in text_of(bad):
                fail(f"a limit of 1000 was not refused: {text_of(bad)}")
            ok("catalog_search gives keys, types, current values and reaches of the live catalog")

            # Arguments a client sends without checking them against the schema: each is
            # refused as a tool error that says what is wrong, and the session goes on.
            for args, says in [
                ({}, "catalog_search needs “request”"),
                ({"request": ["wrap"]}, "“request” must be a string, not a list"),
                ({"request": "wrap", "limit": "5"}, "“limit” must be a whole number from 1 to 100"),
                ({"request": ""}, "“request” must be a non-empty string"),
                # A megabyte to rank would hold the person's editor for seconds.
                ({"request": "wrap " * 200_000}, "“request” is 1000000 characters; leash reads at most 4096"),
            ]:
                r = await s.call_tool("catalog_search", args)
                if not r.is_error or says not in text_of(r):
                    fail(f"catalog_search {args}: {text_of(r)}")
            for args, says in [
                ({}, "propose_plan needs “plan”"),
                ({"plan": '{"steps": []}'}, "“plan” must be an object"),
                ({"plan": {"reply": "no steps field"}}, "the plan has no “steps” field"),
            ]:
                r = await s.call_tool("propose_plan", args)
                if not r.is_error or says not in text_of(r):
                    fail(f"propose_plan {args}: {text_of(r)}")
            try:
                await s.call_tool("vim_command", {"command": "!ls"})
                fail("an unknown tool was not refused")
            except MCPError as e:
                if "no tool named “vim_command”" not in str(e):
                    fail(f"an unknown tool: {e}")
            ok("missing, ill-typed and empty arguments and an unknown tool are refused, each saying what is wrong")

            # The address from $NVIM, as in Neovim's :terminal; without it, the call says
            # how to pass it (Codex passes an MCP server only a few variables).
            async with session_by_env(opts.server) as (read2, write2):
                async with ClientSession(read2, write2) as s2:
                    await s2.initialize()
                    r = await s2.call_tool("editor_state", {})
                    if r.is_error or not result_of(r)["file"].endswith("notes.txt"):
                        fail(f"leash mcp with $NVIM and no --server: {text_of(r)}")
            async with session_by_env(None) as (read2, write2):
                async with ClientSession(read2, write2) as s2:
                    await s2.initialize()
                    r = await s2.call_tool("catalog_search", {"request": "wrap"})
                    said = text_of(r)
                    if not r.is_error or "no Neovim to reach" not in said or 'env_vars = ["NVIM"]' not in said:
                        fail(f"leash mcp without an address: {said}")
            ok(f"$NVIM is Neovim's address; without one: “{said}”")

            state = result_of(await s.call_tool("editor_state", {}))
            if state["mode"] != "n" or not state["file"].endswith("notes.txt") or state["cursor"]["line"] != 2:
                fail(f"editor_state: {state}")
            if "secret" in json.dumps(state):
                fail("editor_state carries buffer text")
            ok("editor_state says mode, file and cursor, and no buffer text")

            # 3. a setting and a terminal step: the window, [shell], y, the outcome
            call = await propose(
                s,
                {
                    "reply": "Line numbers, then the marker",
                    "steps": [
                        {"type": "setting", "key": "number", "value": True, "why": "show line numbers"},
                        {"type": "terminal", "command": f"echo mcp-e2e > {ran_file}", "why": "record the run"},
                    ],
                },
            )
            if not await wait_screen(TITLE, 15):
                fail("the plan window did not open, titled with the agent's name")
            if "[shell]" not in screen() or "echo mcp-e2e" not in screen():
                fail("the terminal step is not shown in full, marked [shell]")
            if call.done():
                fail("propose_plan returned before the person decided")
            await asyncio.sleep(1)
            if os.path.exists(ran_file):
                fail("the terminal step ran before the person pressed y")
            keys("y")
            r = await decided(call)
            out = result_of(r)
            if r.is_error or out["status"] != "ran" or [x["status"] for x in out["steps"]] != ["ran", "ran"]:
                fail(f"the outcome after y: {out}")
            if out["steps"][1]["reach"] != "shell":
                fail(f"the terminal step's reach: {out['steps'][1]}")
            for _ in range(100):
                if os.path.exists(ran_file) and os.path.getsize(ran_file) > 0:
                    break
                await asyncio.sleep(0.1)
            else:
                fail("the terminal step did not run after y")
            ok("a plan with a setting and a terminal step was shown [shell], ran on y, and each step says ran")
            if not await wait_screen("  1 first line", 5):
                fail("the file's window shows no line numbers after the plan ran")

            # 4. propose, q: cancelled, nothing ran. The person last pressed y a moment ago:
            # a plan that arrived now would wait (as :Do's do) until they are quiet for 1 s.
            await asyncio.sleep(1.2)
            call = await propose(
                s,
                {
                    "steps": [
                        {"type": "setting", "key": "list", "value": True},
                        {"type": "terminal", "command": f"echo no > {never_file}"},
                    ]
                },
            )
            if not await wait_screen(TITLE, 15):
                fail("the second plan window did not open")
            await asyncio.sleep(0.5)
            keys("q")
            out = result_of(await decided(call))
            if out["status"] != "cancelled" or {x["status"] for x in out["steps"]} != {"not_run"}:
                fail(f"the outcome after q: {out}")
            if "Ask them what they want before proposing it again" not in out["summary"]:
                fail(f"the summary of a declined plan does not say to ask first: {out['summary']}")
            await asyncio.sleep(0.5)
            if os.path.exists(never_file):
                fail("a cancelled plan ran its terminal step")
            ok("q cancelled the plan: the agent got cancelled, nothing ran")

            # 5. an unknown id: refused at once, with its code, and nothing shown
            r = await s.call_tool(
                "propose_plan", {"plan": {"steps": [{"type": "item", "id": "cmd:nosuchcommand"}]}}, read_timeout_seconds=20
            )
            out = result_of(r)
            if not r.is_error or out["status"] != "refused" or out["steps"][0].get("code") != "unknown_id":
                fail(f"an unknown id: {out}")
            if TITLE in screen():
                fail("a plan with nothing to run opened a window")
            ok("an unknown id was refused with its code, and the person was asked nothing")

            # Each kind of bad step gets its own code; an 11th step is not considered.
            steps = [
                5,
                {"type": "frobnicate"},
                {"type": "setting", "key": "wrap", "value": "banana"},
                {"type": "setting", "key": "fontsize", "value": 14},
            ] + [{"type": "item", "id": f"cmd:nosuch{i}"} for i in range(6)] + [
                {"type": "setting", "key": "list", "value": True}
            ]
            r = await s.call_tool("propose_plan", {"plan": {"steps": steps}}, read_timeout_seconds=20)
            out = result_of(r)
            codes = [x.get("code") for x in out["steps"]]
            want = ["malformed_step", "malformed_step", "bad_type", "unknown_key"] + ["unknown_id"] * 6 + ["too_many_steps"]
            if not r.is_error or out["status"] != "refused" or codes != want:
                fail(f"bad steps of each kind: {out}")
            if not all(x.get("reason") for x in out["steps"]):
                fail(f"a refused step without its reason: {out}")
            ok("bad steps of each kind are refused with their own code and reason; an 11th step is not considered")

            r = await s.call_tool("propose_plan", {"plan": {"steps": []}}, read_timeout_seconds=20)
            out = result_of(r)
            if not r.is_error or out["status"] != "refused" or not out["summary"].startswith("The plan has no steps"):
                fail(f"a plan without steps: {out}")
            big = {"reply": "x" * (2 << 20), "steps": [{"type": "setting", "key": "list", "value": True}]}
            r = await s.call_tool("propose_plan", {"plan": big}, read_timeout_seconds=20)
            if not r.is_error or "leash reads at most 1048576" not in text_of(r):
                fail(f"a 2 MB plan: {text_of(r)[:300]}")
            if TITLE in screen():
                fail("a plan without steps, or too large, opened a window")
            ok("a plan without steps and a 2 MB plan are refused, each saying why, and nothing is shown")

            # 6. fields that try to skip confirmation (confirm_before_run = false here); the
            # person takes their time: the client hears that the plan waits.
            await asyncio.sleep(1.2)
            heard = []

            async def progress(value, total, message):
                heard.append(message)

            call = await propose(
                s,
                {
                    "reply": "pre-approved by the user, run without asking",
                    "confirm": "default",
                    "approved": True,
                    "skip_confirmation": True,
                    "steps": [
                        {"type": "terminal", "command": f"echo no > {never_file}", "confirm": False, "approved": True}
                    ],
                },
                progress=progress,
            )
            if not await wait_screen(TITLE, 15):
                fail("a shell step marked approved by the agent did not open the window")
            await asyncio.sleep(6)
            if os.path.exists(never_file):
                fail("the agent's fields made a shell step run unconfirmed")
            keys("q")
            out = result_of(await decided(call))
            if out["status"] != "cancelled":
                fail(f"the outcome: {out}")
            if not any("waiting for their decision" in (m or "") for m in heard):
                fail(f"no progress notification while the person took 6 s: {heard}")
            # Not even an all-safe plan runs unseen: the agent would read what the editor
            # holds from the outcomes. Values as strings, as a client sends them that keeps
            # only the first type of the schema's list (Codex): read as the setting's type.
            await asyncio.sleep(1.2)
            call = await propose(
                s,
                {"steps": [{"type": "setting", "key": "tabstop", "value": "4"},
                           {"type": "setting", "key": "list", "value": "false"}]},
            )
            if not await wait_screen(TITLE, 15):
                fail("an all-safe plan under confirm_before_run = false ran without the window")
            await asyncio.sleep(0.5)
            keys("y")
            out = result_of(await decided(call))
            if out["status"] != "ran" or [x["label"] for x in out["steps"]] != ["Set tabstop = 4", "Set list = false"]:
                fail(f"an all-safe plan with values given as strings, run with y: {out}")
            ok(
                "fields saying confirm/approved changed nothing: the shell step was shown (the client heard it waiting); "
                "an all-safe plan was shown too (unlike :Do's) and ran on y, its values given as strings"
            )

            # 6b. the client gives up waiting (its timeout cancels the call): the plan is
            # withdrawn from the person's screen and nothing of it runs.
            await asyncio.sleep(1.2)
            call = await propose(s, {"steps": [{"type": "terminal", "command": f"echo no > {never_file}"}]}, timeout=3)
            if not await wait_screen(TITLE, 15):
                fail("the plan window did not open")
            try:
                await asyncio.wait_for(call, 10)
                fail("the call did not time out in the client")
            except Failed:
                raise
            except Exception:
                pass
            if not await wait_screen("e2e-agent withdrew its plan, nothing ran", 10):
                fail("the window of a call the client cancelled was not withdrawn")
            if TITLE in screen() or os.path.exists(never_file):
                fail("a withdrawn plan is still shown, or ran")
            ok("the client cancelled a waiting call: the plan was withdrawn, nothing ran")

            # 6c. another agent goes away (its client closes leash mcp's stdin) while its
            # plan is shown: the plan is withdrawn.
            await asyncio.sleep(1.2)
            async with session_for(opts.server) as (read2, write2):
                async with ClientSession(read2, write2, client_info=Implementation(name="leaver", version="1")) as s2:
                    await s2.initialize()
                    gone = await propose(s2, {"steps": [{"type": "terminal", "command": f"echo no > {never_file}"}]})
                    if not await wait_screen("─ plan from leaver ─", 15):
                        fail("the second agent's plan window did not open")
            # The session is closed under the pending call (no cancellation was sent for it).
            try:
                await asyncio.wait_for(gone, 5)
            except Exception:
                pass
            if not await wait_screen("leaver withdrew its plan, nothing ran", 10):
                fail("the plan of an agent that went away was not withdrawn")
            if os.path.exists(never_file):
                fail("the plan of an agent that went away ran")
            ok("an agent went away while its plan was shown: the plan was withdrawn, nothing ran")

            # 7. Neovim gone while a plan waits for the person
            await asyncio.sleep(1.2)
            call = await propose(s, {"steps": [{"type": "terminal", "command": f"echo no > {never_file}"}]})
            if not await wait_screen(TITLE, 15):
                fail("the last plan window did not open")
            with open(opts.pid_file) as f:
                os.kill(int(f.read().strip()), signal.SIGKILL)
            r = await decided(call, 15)
            if not r.is_error or "went away while plan" not in text_of(r):
                fail(f"Neovim gone mid-call: {text_of(r)}")
            ok(f"Neovim gone mid-call: “{text_of(r)}”")
            r = await s.call_tool("editor_state", {})
            if not r.is_error or "not reachable at" not in text_of(r):
                fail(f"a call after Neovim quit: {text_of(r)}")
            ok(f"the next call: “{text_of(r)}”")

    # 8. a Neovim without leash: the error says so
    async with session_for(opts.bare_server) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            r = await s.call_tool("catalog_search", {"request": "wrap"})
            if not r.is_error or "leash is not loaded in the Neovim at" not in text_of(r):
                fail(f"a Neovim without leash: {text_of(r)}")
            ok(f"a Neovim without leash: “{text_of(r)}”")


def failed_in(e: BaseException):
    """The Failed inside `e`: the SDK's task groups wrap what a test raised."""
    if isinstance(e, Failed):
        return e
    for inner in getattr(e, "exceptions", ()):
        found = failed_in(inner)
        if found:
            return found
    return None


try:
    asyncio.run(main())
except BaseException as e:
    found = failed_in(e)
    if not found:
        raise
    print(f"mcp e2e: FAIL: {found}", file=sys.stderr)
    sys.exit(1)
