"""A small JSON Schema checker for docs/schemas/*.json: the keywords those files use (type, const, enum,
properties, required, additionalProperties: false, items, min/maxItems, minimum, maximum, min/maxLength,
pattern, oneOf, anyOf, and $ref to their own $defs). An unknown keyword is an error, so a schema never
says more than is checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"
KNOWN = {"$comment", "$defs", "$ref", "type", "const", "enum", "properties", "required", "additionalProperties",
         "items", "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "oneOf", "anyOf"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def load(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text())


def errors(value, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """Every way `value` breaks `schema` (empty: it conforms)."""
    root = root if root is not None else schema
    found: list[str] = []
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: the schema uses unchecked keywords {sorted(unknown)}"]
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        found += errors(value, root["$defs"][name], root, path)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[kind](value) for kind in kinds):
            return found + [f"{path}: {value!r:.60} is not {' or '.join(kinds)}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{path}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    for branch_key in ("oneOf", "anyOf"):
        if branch_key in schema:
            passing = [branch for branch in schema[branch_key] if not errors(value, branch, root, path)]
            if not passing or (branch_key == "oneOf" and len(passing) > 1):
                found.append(f"{path}: matches {len(passing)} of the {branch_key} choices")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        found += [f"{path}: {name!r} is missing" for name in schema.get("required", []) if name not in value]
        for name, item in value.items():
            if name in properties:
                found += errors(item, properties[name], root, f"{path}.{name}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{path}: {name!r} is not allowed")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            found.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                found += errors(item, schema["items"], root, f"{path}[{index}]")
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{path}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            found.append(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            found.append(f"{path}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{path}: {value!r:.60} does not match {schema['pattern']}")
    return found


def check(value, name: str) -> None:
    """Assert that a message conforms to docs/schemas/<name>.json."""
    problems = errors(value, load(name))
    assert not problems, f"{json.dumps(value)[:300]} breaks docs/schemas/{name}.json: {problems[:5]}"
