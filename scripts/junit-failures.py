"""Prints each failed test case of JUnit reports, with its first message:
what `scripts/test` shows when a run fails, since a test's console lines can
be lost while the face library's startup output is held back."""
import sys
import xml.etree.ElementTree as ElementTree

for path in sys.argv[1:]:
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        print(f"  {path}: {error}")
        continue
    for case in root.iter("testcase"):
        for failure in list(case.findall("failure")) + list(case.findall("error")):
            message = (failure.get("message") or failure.text or "").strip().splitlines()
            print(f"  {case.get('classname')}.{case.get('name')}: {message[0] if message else ''}")
