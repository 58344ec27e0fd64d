#!/usr/bin/env python3
"""Stand-ins for the macOS tools scripts/bundle-macos.sh calls, so that its macOS branch runs on
Linux (tests/bundle_layout.rs). Called through links named after each tool.

Mach-O files are modelled by a JSON state file ($FAKE_MACHO_STATE) keyed by file name:
{"libtorch_cpu.dylib": {"id": "@rpath/libtorch_cpu.dylib", "loads": [...], "rpaths": [...]}}.
otool prints from it in otool's own formats; install_name_tool edits it and fails where the
real one fails (adding an rpath twice, deleting a missing one). Every call is appended to
$FAKE_TOOL_LOG as one line: the tool name and its arguments, tab-separated.
"""

import json
import os
import plistlib
import sys
import zipfile

tool = os.path.basename(sys.argv[0])
args = sys.argv[1:]
state_path = os.environ["FAKE_MACHO_STATE"]

with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
    log.write("\t".join([tool] + args) + "\n")


def load():
    with open(state_path) as f:
        return json.load(f)


def save(state):
    with open(state_path, "w") as f:
        json.dump(state, f, indent=1)


def entry(state, path):
    name = os.path.basename(path)
    if name not in state:
        sys.exit(f"{tool}: {path}: not a Mach-O file (fake: unknown to the state file)")
    return state[name]


if tool == "uname":
    print({"-s": "Darwin", "-m": "arm64"}.get(args[0] if args else "-s", "Darwin"))
elif tool == "otool":
    flag, path = args
    e = entry(load(), path)
    if flag == "-L":
        print(f"{path}:")
        for name in ([e["id"]] if e.get("id") else []) + e["loads"]:
            print(f"\t{name} (compatibility version 0.0.0, current version 0.0.0)")
    elif flag == "-l":
        for i, rpath in enumerate(e["rpaths"]):
            print(f"Load command {20 + i}\n          cmd LC_RPATH\n      cmdsize 32\n"
                  f"         path {rpath} (offset 12)")
    else:
        sys.exit(f"otool: fake supports -L and -l, not {flag}")
elif tool == "install_name_tool":
    state = load()
    option, value, path = args
    e = entry(state, path)
    if option == "-id":
        e["id"] = value
    elif option == "-add_rpath":
        if value in e["rpaths"]:
            sys.exit(f"install_name_tool: would duplicate path, file already has LC_RPATH for: {value}")
        e["rpaths"].append(value)
    elif option == "-delete_rpath":
        if value not in e["rpaths"]:
            sys.exit(f"install_name_tool: no LC_RPATH load command with path: {value}")
        e["rpaths"].remove(value)
    else:
        sys.exit(f"install_name_tool: fake does not know {option}")
    save(state)
elif tool == "codesign":
    if "--verify" in args:
        target = args[-1]
        if not os.path.isdir(target):
            sys.exit(f"codesign: {target}: no such bundle")
elif tool == "plutil":
    assert args[0] == "-lint"
    with open(args[1], "rb") as f:
        plistlib.load(f)
    print(f"{args[1]}: OK")
elif tool == "ditto":
    # ditto -c -k --sequesterRsrc --keepParent SRC DEST
    src, dest = args[-2], args[-1]
    assert "--keepParent" in args and "-k" in args
    parent = os.path.dirname(os.path.abspath(src))
    with zipfile.ZipFile(dest, "w") as z:
        for folder, _, files in os.walk(src):
            for name in files:
                full = os.path.join(folder, name)
                z.write(full, os.path.relpath(full, parent))
else:
    sys.exit(f"fake_tool.py: unknown tool {tool}")
