"""Scripted plans for the end-to-end tests of the plan window (tests/e2e/window.sh).

A request holding `e2e-plan:NAME` is answered with the plan NAME below. Terminal steps
write a marker file `NAME.txt` into `out_dir`, so the test can tell whether they ran.
"""

import re


def _marker(out_dir, name):
    return {
        "type": "terminal",
        "command": "echo %s > %s/%s.txt" % (name, out_dir, name),
        "why": "the end-to-end test checks whether this ran",
    }


def _setting(key, value, why="the end-to-end test sets it"):
    return {"type": "setting", "key": key, "value": value, "why": why}


def _long_why(i):
    return ("reason %d: " % i) + " ".join(["this reason is long on purpose and pushes the next steps down"] * 4)


def _set_cmdheight(out_dir):
    # An innocent-looking step: the next window has four rows left.
    return {"reply": "Giving messages more room.", "steps": [_setting("cmdheight", 34, "more room for messages")]}


def _set_lines(out_dir):
    return {"reply": "A smaller editor.", "steps": [_setting("lines", 12, "fewer lines")]}


def _set_huge(out_dir):
    # Larger than the terminal: most of Neovim's screen is drawn where nobody sees it.
    return {"reply": "A bigger editor.", "steps": [_setting("columns", 300, "wider"), _setting("lines", 100, "taller")]}


def _set_rightleft(out_dir):
    return {"reply": "Right to left.", "steps": [_setting("rightleft", True, "for a right-to-left language")]}


def _hidden_shell(out_dir):
    # The reply is written to look like the whole (harmless) plan.
    return {
        "reply": "1. Set wrap: false → true (wrap long lines at the window edge). That is all.",
        "steps": [_setting("wrap", True, _long_why(1)), _marker(out_dir, "hidden_shell")],
    }


def _typeahead(out_dir):
    return {"reply": "A terminal step.", "steps": [_marker(out_dir, "typeahead")]}


def _slow(out_dir):
    # Arrives 3 s after the request, while the user is typing in Insert mode.
    return {"_delay_s": 3, "reply": "A terminal step, late.", "steps": [_marker(out_dir, "slow")]}


def _long(out_dir):
    # 30 steps (the checker keeps the first 10): long reasons push the shell step, the
    # tenth, far below the first screen.
    keys = ["number", "relativenumber", "cursorline", "list", "spell", "ruler", "showcmd", "hlsearch", "incsearch"]
    steps = [_setting(k, True, _long_why(i + 1)) for i, k in enumerate(keys)]
    steps.append(_marker(out_dir, "long"))
    steps += [_setting("wrap", True, "past the cap") for _ in range(20)]
    return {"reply": "Thirty steps.", "steps": steps}


def _already(out_dir):
    return {"reply": "Word wrap on.", "steps": [_setting("wrap", True, "wrap long lines")]}


def _invisible(out_dir):
    # U+061C drew zero-width: the window read `cd junk; rm -f precious.txt`. The
    # terminal command itself would be dropped, so the model's prose carries them here.
    step = _marker(out_dir, "invisible")
    step["why"] = "tidy\u202e up\U000e0041"
    return {"reply": "cd junk;\u061c rm -f precious.txt", "steps": [step]}


def _preview(out_dir):
    # Two steps that change text and a setting: the window shows what each step does to
    # the buffer, and one :Leash undo takes all three back.
    return {
        "reply": "Sorting, then capitals.",
        "steps": [
            {"type": "item", "id": "cmd:sort", "why": "in order"},
            {"type": "item", "id": "cmd:substitute", "args": ["/^apple/APPLE/"], "why": "capitals"},
            _setting("tabstop", 4, "narrower tabs"),
        ],
    }


def _marked(out_dir):
    # Steps marked [code] for reasons the window says beside them.
    return {
        "reply": "A dark theme, in German.",
        "steps": [
            {"type": "item", "id": "cmd:colorscheme", "args": ["habamax"], "why": "dark"},
            _setting("spelllang", "de", "German"),
        ],
    }


PLANS = {
    "cmdheight": _set_cmdheight,
    "lines": _set_lines,
    "huge": _set_huge,
    "rightleft": _set_rightleft,
    "hidden_shell": _hidden_shell,
    "typeahead": _typeahead,
    "long": _long,
    "slow": _slow,
    "already": _already,
    "invisible": _invisible,
    "preview": _preview,
    "marked": _marked,
}


def scripted_plan(request_text, out_dir):
    """The scripted plan the request names, or None when it names none."""
    m = re.search(r"e2e-plan:([A-Za-z_]+)", request_text)
    if not m:
        return None
    make = PLANS.get(m.group(1))
    if make is None:
        return {"reply": "No scripted plan is called %s." % m.group(1), "steps": []}
    return make(out_dir)
