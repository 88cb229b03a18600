#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus from the project's fixtures.

Every case of tests/fixtures/*.smp becomes one input per target: a selector
byte (schema and flags) and the case's JSON documents, one per line, in the
order the case gives them (original, patch or modified, current; the
documents of `patches` one by one); `cli_input` has command lines of
each subcommand with some of those documents and with YAML texts. Run
from anywhere:

    python3 fuzz/seeds.py        # writes fuzz/corpus/<target>/<hash>
    python3 fuzz/seeds.py DIR    # writes DIR/<target>/<hash>
"""
import hashlib
import json
import pathlib
import sys

FUZZ = pathlib.Path(__file__).resolve().parent
FIXTURES = FUZZ.parent / "tests" / "fixtures"
TARGETS = {"apply": 2, "diff": 2, "three_way": 3, "typed": 3, "bytes": 3, "merge_patch": 3, "options": 3}
INPUT_KEYS = ("original", "patch", "modified", "current", "left", "right")
# Selector bytes: the schema is `(selector & 0x0f) % 3` (untyped, item, pod); the
# high bits set options.
SCHEMA_OF = {"untyped": 0, "merge-item": 1, "pod": 2}


def cases(path):
    """The JSON documents and the schema of each case in a fixture file."""
    docs, schema = [], "merge-item"
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if docs:
                yield docs, schema
            docs, schema = [], "merge-item"
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "schema":
            schema = value
        elif key in INPUT_KEYS:
            try:
                docs.append(json.loads(value))
            except ValueError:
                pass
        elif key == "patches":
            try:
                docs.extend(json.loads(value))
            except ValueError:
                pass


def main():
    corpus = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else FUZZ / "corpus"
    written = 0
    for path in sorted(FIXTURES.glob("*.smp")):
        for docs, schema in cases(path):
            base = SCHEMA_OF.get(schema, 0)
            for target, n in TARGETS.items():
                lines = [json.dumps(d, separators=(",", ":")) for d in docs]
                while len(lines) < n:
                    lines.append(lines[-1] if lines else "{}")
                text = "\n".join(lines).encode()
                for flags in (0x00, 0x90, 0xE0):
                    data = bytes([base + flags]) + text
                    out = corpus / target / hashlib.sha1(data).hexdigest()
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(data)
                    written += 1
            # json_patch: (document, operations, other document), the
            # operations of every kind, between the case's documents.
            first, other = (docs + [{}, {}])[:2]
            ops = [
                {"op": "add", "path": "/x", "value": other},
                {"op": "move", "from": "/x", "path": "/y"},
                {"op": "test", "path": "/y", "value": other},
                {"op": "copy", "from": "/y", "path": "/z"},
                {"op": "remove", "path": "/z"},
                {"op": "replace", "path": "/y", "value": 1},
            ]
            lines = [json.dumps(d, separators=(",", ":")) for d in (first, ops, other)]
            data = bytes([base]) + "\n".join(lines).encode()
            out = corpus / "json_patch" / hashlib.sha1(data).hexdigest()
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
            written += 1
    written += cli_seeds(corpus / "cli_input")
    print(f"{written} seed inputs written under {corpus}")


# cli_input: a command line (words split at spaces), then a file's text.
COMMAND_LINES = [
    "apply a.yaml -p {} -o yaml",
    "apply -R dir -p metadata:{labels:{a:b}} --diff",
    "apply --type json a.json -p []",
    "apply --type merge --explain --diff a.json b.json",
    "apply --kind deploy --patch-merge-key a.yaml b.yaml -o json",
    "apply --crd c.yaml --type strategic --version v1 a.yaml b.yaml",
    "apply --untyped a.json b.json",
    "apply --jsonl c.jsonl --jobs 2",
    "diff --exit-code a.json b.json",
    "three-way --kind Pod a.json b.json c.json",
    "three-way --from-annotation a.yaml b.yaml -o yaml",
]
# Texts as YAML: a stream, a list, anchors, block scalars, flow style.
YAML_TEXTS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: v\n---\nkind: Pod\n",
    "kind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n",
    "a: &x [1, 2]\nb: *x\nc: |\n  text\n  more\nd: 0o17\ne: .inf\nf: ~\n",
    "spec:\n  containers:\n  - name: c\n    image: i\n    $patch: replace\n",
]


def cli_seeds(out):
    """Each command line with the documents of a few fixture cases (as
    JSON) and with the YAML texts."""
    texts = [text.encode() for text in YAML_TEXTS]
    for path in sorted(FIXTURES.glob("*.smp"))[:5]:
        for docs, _ in list(cases(path))[:4]:
            texts.append("\n".join(json.dumps(d) for d in docs).encode())
    written = 0
    for line in COMMAND_LINES:
        for text in texts:
            data = line.encode() + b"\n" + text
            target = out / hashlib.sha1(data).hexdigest()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written += 1
    return written


if __name__ == "__main__":
    main()
