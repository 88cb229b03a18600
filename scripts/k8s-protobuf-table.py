#!/usr/bin/env python3
"""The table the test server decodes Kubernetes' protobuf bodies with.

Reads every `generated.proto` of k8s.io/api and k8s.io/apimachinery (field
numbers and types) and the Go structs beside it (the JSON name of each
field, `omitempty`, pointers, `inline`), from bare git mirrors of the two
repositories, and writes one line per message and per field:

    message k8s.io.api.core.v1.ConfigMap
    NUMBER JSON_NAME LABEL TYPE FLAGS

LABEL is `one`, `rep` or `map`; TYPE a protobuf scalar, a full message name
or, for a map, `KEY,VALUE`; FLAGS the letters `p` (a Go pointer), `o`
(`omitempty`), `i` (inlined in JSON: JSON_NAME is `-`), or `-`. A message
header ending in ` list` is a Go slice type (its JSON is the array of its
`items`).

    scripts/k8s-protobuf-table.py API_GIT_DIR APIMACHINERY_GIT_DIR > \
        smp-k8s-types/src/server/protobuf/messages.txt
"""

import re
import subprocess
import sys

SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "double", "float",
           "fixed32", "fixed64", "sfixed32", "sfixed64"}


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def proto_messages(text):
    """(package, {message: [(number, name, label, type)]}) of a proto file."""
    package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
    messages = {}
    current = None
    for line in text.splitlines():
        line = line.split("//")[0].strip()
        m = re.match(r"message (\w+) \{", line)
        if m:
            current = messages.setdefault(m.group(1), [])
            continue
        if line == "}":
            current = None
            continue
        if current is None:
            continue
        m = re.match(r"(optional|repeated) ([\w.]+) (\w+) = (\d+);", line)
        if m:
            label = "one" if m.group(1) == "optional" else "rep"
            current.append((int(m.group(4)), m.group(3), label, qualify(m.group(2), package)))
            continue
        m = re.match(r"map<([\w.]+), ?([\w.]+)> (\w+) = (\d+);", line)
        if m:
            kv = qualify(m.group(1), package) + "," + qualify(m.group(2), package)
            current.append((int(m.group(4)), m.group(3), "map", kv))
    return package, messages


def qualify(type_name, package):
    if type_name in SCALARS:
        return type_name
    if "." in type_name:
        return type_name.lstrip(".")
    return package + "." + type_name


STRUCT = re.compile(r"^type (\w+) struct \{")
FIELD = re.compile(r"^\s+(?:(\w+)\s+)?([*\[\]\w.]+)\s+`([^`]*)`")
SLICE = re.compile(r"^type (\w+) \[\]([*\w.]+)\s*$", re.M)


def go_structs(texts):
    """{struct: {proto name: (json name, flags)}} and the slice types."""
    structs = {}
    slices = set()
    for text in texts:
        slices.update(m.group(1) for m in SLICE.finditer(text))
        current = None
        for line in text.splitlines():
            m = STRUCT.match(line)
            if m:
                current = structs.setdefault(m.group(1), {})
                continue
            if line.startswith("}"):
                current = None
                continue
            if current is None:
                continue
            m = FIELD.match(line)
            if not m:
                continue
            go_type, tag = m.group(2), m.group(3)
            proto = re.search(r'protobuf:"[^"]*name=(\w+)', tag)
            if not proto:
                continue
            json_tag = re.search(r'json:"([^"]*)"', tag)
            parts = json_tag.group(1).split(",") if json_tag else [""]
            flags = ""
            if go_type.startswith("*"):
                flags += "p"
            if "omitempty" in parts[1:]:
                flags += "o"
            json_name = parts[0]
            if "inline" in parts[1:] or json_name == "":
                flags += "i"
                json_name = "-"
            current[proto.group(1)] = (json_name, flags or "-")
    return structs, slices


def package_files(git_dir, prefix):
    names = git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    dirs = sorted({n.rsplit("/", 1)[0] for n in names if n.startswith(prefix) and n.endswith("/generated.proto")})
    for d in dirs:
        go = [n for n in names if n.rsplit("/", 1)[0] == d and n.endswith(".go")
              and not n.endswith("_test.go") and not n.endswith(".pb.go") and "zz_generated" not in n]
        yield d, git(git_dir, "show", f"HEAD:{d}/generated.proto"), [git(git_dir, "show", f"HEAD:{f}") for f in go]


def main():
    api, machinery = sys.argv[1], sys.argv[2]
    print("# Kubernetes' protobuf messages: field numbers and types from the generated.proto files, JSON")
    print("# names and omitempty from the Go structs, of k8s.io/api "
          + git(api, "rev-parse", "HEAD").strip() + " and k8s.io/apimachinery "
          + git(machinery, "rev-parse", "HEAD").strip() + ".")
    print("# Written by scripts/k8s-protobuf-table.py; the format is described there.")
    sources = [(machinery, "pkg/"), (api, "")]
    for git_dir, prefix in sources:
        for _, proto, go in package_files(git_dir, prefix):
            package, messages = proto_messages(proto)
            structs, slices = go_structs(go)
            for name, fields in sorted(messages.items()):
                print(f"message {package}.{name}" + (" list" if name in slices else ""))
                go_fields = structs.get(name, {})
                if fields and name not in structs:
                    print(f"no Go struct for {package}.{name}", file=sys.stderr)
                for number, proto_name, label, type_name in sorted(fields):
                    json_name, flags = go_fields.get(proto_name, (proto_name, "o"))
                    print(f"{number} {json_name} {label} {type_name} {flags}")


if __name__ == "__main__":
    main()
