# SPDX-License-Identifier: MIT
# File: tests/pictures/committed.py     CTest: pictures/committed
#
# The pictures README.md and docs/ show are the build's own: each committed file under docs/pictures/ must
# be, byte for byte, the drawing the build made (a figure of an audit page, or a scene). A change to
# lwc.draw or to the audit's page that changes them fails here until they are copied again:
#   python3 tests/pictures/committed.py --build build/dev --source . --update
import argparse
import os
import re
import sys

# docs/pictures/<file>: (the build's file under pictures/, the figure's data-* attributes, or None for the whole file)
PICTURES = {
    "fcl_spatial_hash_seed001.svg": ("audit/fcl_spatial_hash.html", 'data-line="1" data-contract="broadphase" '
                                     'data-op="find_pairs" data-kind="pairs"'),
    "fcl_spatial_hash_miss.svg": ("audit/fcl_spatial_hash.html", 'data-line="2" data-contract="broadphase" '
                                  'data-op="find_pairs" data-kind="missed-pair" data-pair="0 1"'),
    "c_truncating_split.svg": ("audit/c_truncating.html", 'data-line="1" data-contract="decompose" '
                               'data-op="split" data-kind="chunks"'),
    "c_cover_off_by_one.svg": ("audit/c_cover_off_by_one.html", 'data-line="1" data-contract="cover" '
                               'data-op="cover" data-kind="cover"'),
    "scene_small.svg": ("scene_small.svg", None),
}


def drawing(build, page, attributes):
    with open(os.path.join(build, "pictures", page), encoding="utf-8") as f:
        text = f.read()
    if attributes is None:
        return text
    m = re.search(r"<figure class=\"drawing\" " + re.escape(attributes) + r"[^>]*>\n(.*?)<figcaption>", text, re.S)
    if not m:
        raise SystemExit(f"committed: no figure with {attributes} in {page}")
    return m.group(1)


def main():
    parser = argparse.ArgumentParser(description="the committed pictures are the build's")
    parser.add_argument("--build", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--update", action="store_true", help="copy the build's pictures over the committed ones")
    args = parser.parse_args()
    stale = []
    for name, (page, attributes) in PICTURES.items():
        built = drawing(args.build, page, attributes)
        path = os.path.join(args.source, "docs", "pictures", name)
        if args.update:
            with open(path, "w", encoding="utf-8") as f:
                f.write(built)
            continue
        with open(path, encoding="utf-8") as f:
            if f.read() != built:
                stale.append(name)
    for name in stale:
        print(f"committed: docs/pictures/{name} is not what this build draws; run "
              "python3 tests/pictures/committed.py --build BUILD --source . --update")
    print(f"committed: {len(PICTURES) - len(stale)} of {len(PICTURES)} pictures are the build's")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
