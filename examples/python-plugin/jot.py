#!/usr/bin/env python3
"""jot: a homed plugin in Python, standard library only.

It offers one tool, jot_add, which appends a dated line to jottings.md in the plugin's state
folder: the dataDir homed's answer to plugin/hello names (DATA/plugin-state/jot). homed runs a
plugin someone added in a sandbox where its own folder is read-only and that state folder is
the one place it may write. The tool changes a file, so it declares the risk
class "write": homed asks the person before each call unless they have allowed it.

The protocol (homed's docs/plugins.md has the whole table):

- JSON-RPC 2.0, one JSON object per line: we read the kernel's frames on stdin and write ours
  on stdout. stdout carries nothing else; logs go to stderr as key=value lines.
- "transport": "stdio" in plugin.json: no shared memory, no extra file descriptors. Bulk data
  (none here) would travel inline as base64.
- Start: we send plugin/hello (our name, the protocol version, our pid) and wait for the answer;
  then we register our tools (tools/register) and say plugin/ready. Until then homed counts the
  plugin as starting, and kills it if that takes longer than plugins.start_timeout_ms.
- Then homed sends requests we answer (plugin/ping, tool/run, tool/check) and notifications we
  do not answer (plugin/shutdown, tool/cancel, event).
- When stdin ends, homed is gone: a plugin never outlives it, so we exit.
"""
import datetime
import json
import os
import sys

PROTOCOL = 1  # PLUGIN_PROTOCOL_VERSION: homed refuses a hello with another one
NAME = os.environ.get("HOMED_PLUGIN_NAME", "jot")  # set by homed: the folder's (and manifest's) name
JOTTINGS = None  # set from plugin/hello's dataDir
MAX_TEXT = 2000

TOOLS = [
    {
        "name": "jot_add",
        "description": "Write down a short line (an idea, a reminder) in the jottings file, with today's date.",
        # JSON Schema of the arguments; homed checks the model's arguments against it before we
        # see them, and we check again (a plugin trusts nothing that crosses the pipe).
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "description": "The line to jot down."}},
            "required": ["text"],
            "additionalProperties": False,
        },
        # Required. read: no side effects, may run unasked. write, exec, network, secret: asked about.
        "risk": "write",
        # Words a person uses when they need it: they rank the tool for a turn, never sent to the model.
        "examples": ["jot this down", "make a quick note of that idea"],
    }
]


def log(level, msg, **fields):
    """One key=value line on stderr; homed keeps the last lines with the plugin's status."""
    parts = ["level=" + level, "msg=" + json.dumps(msg)]
    parts += ["%s=%s" % (k, json.dumps(v) if isinstance(v, str) else v) for k, v in fields.items()]
    print(" ".join(parts), file=sys.stderr, flush=True)


def send(frame):
    """Write one frame: a JSON object on one line of stdout."""
    frame["jsonrpc"] = "2.0"
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def frames():
    """The kernel's frames, one per line. A line that is not JSON is logged and skipped."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except ValueError as err:
            log("warn", "bad frame from the kernel", err=str(err))
            continue
        if isinstance(frame, dict):
            yield frame


incoming = frames()
next_id = 1


def request(method, params):
    """Send a request and wait for its answer, handling whatever homed asks meanwhile."""
    global next_id
    rid = next_id
    next_id += 1
    frame = {"id": rid, "method": method}
    if params is not None:  # JSON-RPC: params is an object (or array), or absent
        frame["params"] = params
    send(frame)
    for frame in incoming:
        if "method" not in frame and frame.get("id") == rid:
            if "error" in frame:
                raise RuntimeError("%s: %s" % (method, frame["error"].get("message")))
            return frame.get("result")
        handle(frame)
    sys.exit(0)  # stdin ended: homed is gone


def run_tool(params):
    """tool/run: {name, arguments, callId, conv, untrusted} -> {content, isError}."""
    if params.get("name") != "jot_add":
        return {"content": "error: jot has no tool %s" % params.get("name"), "isError": True}
    args = params.get("arguments")
    text = args.get("text") if isinstance(args, dict) else None
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        return {"content": "error: text must be 1-%d characters" % MAX_TEXT, "isError": True}
    line = "- %s %s\n" % (datetime.date.today().isoformat(), " ".join(text.split()))
    with open(JOTTINGS, "a", encoding="utf-8") as f:
        f.write(line)
    with open(JOTTINGS, encoding="utf-8") as f:
        count = sum(1 for _ in f)
    log("info", "jotted", conv=params.get("conv", ""), lines=count)
    return {"content": "Jotted down (%d line%s in jottings.md)." % (count, "" if count == 1 else "s"), "isError": False}


def handle(frame):
    """A request (has an id: answer it) or a notification (no id: act, never answer)."""
    method = frame.get("method")
    if method is None:
        return  # an answer to nothing we are waiting for
    if "id" not in frame:
        if method == "plugin/shutdown":  # please exit cleanly
            log("info", "shutting down")
            sys.exit(0)
        return  # tool/cancel: our calls are too quick to stop; event: none subscribed
    params = frame.get("params") or {}
    if method == "plugin/ping":  # liveness: three missed pings and homed restarts us
        send({"id": frame["id"], "result": {"pid": os.getpid()}})
    elif method == "tool/run":
        try:
            result = run_tool(params)
        except OSError as err:
            result = {"content": "error: %s" % err, "isError": True}
        send({"id": frame["id"], "result": result})
    elif method == "tool/check":  # only for tools that declare "checks": nothing to refuse early
        send({"id": frame["id"], "result": {"refuse": None}})
    else:
        send({"id": frame["id"], "error": {"code": -32601, "message": "jot has no method %s" % method}})


def main():
    global JOTTINGS
    hello = request("plugin/hello", {"name": NAME, "protocol": PROTOCOL, "pid": os.getpid()})
    JOTTINGS = os.path.join(hello["dataDir"], "jottings.md")
    log("info", "connected", kernel=hello.get("kernelVersion", "?"))
    request("tools/register", {"tools": TOOLS})
    # We provide no facility, so one plugin/ready says we are ready (a plugin that provides
    # some says facility/ready for each instead).
    request("plugin/ready", None)
    for frame in incoming:
        handle(frame)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, BrokenPipeError) as err:
        log("error", "giving up", err=str(err))
        sys.exit(1)
