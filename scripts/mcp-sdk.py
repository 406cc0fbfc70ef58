"""`ragger mcp` driven by the official MCP Python SDK's client (issue 34).

Usage: python mcp-sdk.py RAGGER_BINARY   (scripts/mcp-sdk.sh sets it up)

In a scratch home (no model: the embedder is off, search is by keyword),
it captures two turns, then over one stdio session: lists the tools,
checks their schemas (every tool has an outputSchema; optional numbers are
typed "integer" and not required), and calls every tool with typed
arguments. The SDK itself checks each result's structuredContent against
the tool's outputSchema; this script checks what the results say.
Exits non-zero on the first failure, naming it.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = {"context", "list_projects", "recent", "remember", "search", "show_session"}


def check(ok, what):
    if not ok:
        raise SystemExit(f"mcp-sdk: FAIL: {what}")


def scratch_env(root):
    for sub in ("home", "data", "config", "state", "cache"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    config = os.path.join(root, "config", "ragger.toml")
    with open(config, "w") as f:
        f.write("[embedder]\nenabled = false\n")
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.path.join(root, "home"),
        "XDG_DATA_HOME": os.path.join(root, "data"),
        "XDG_CONFIG_HOME": os.path.join(root, "config"),
        "XDG_STATE_HOME": os.path.join(root, "state"),
        "XDG_CACHE_HOME": os.path.join(root, "cache"),
        "RAGGER_SYSTEM_CONFIG": os.path.join(root, "no-system-config.toml"),
        "RAGGER_CONFIG": config,
    }


def capture(ragger, env, session, user, assistant):
    subprocess.run(
        [ragger, "capture", "--session", session, "--project", "shop", "--user", user, "--assistant", assistant],
        env=env,
        check=True,
        stdin=subprocess.DEVNULL,
    )


def check_schemas(tools):
    names = {t.name for t in tools}
    check(names == TOOLS, f"tools listed: {sorted(names)}, expected {sorted(TOOLS)}")
    for t in tools:
        check(t.output_schema is not None and t.output_schema.get("type") == "object", f"{t.name}: outputSchema")
        props = t.input_schema.get("properties", {})
        required = set(t.input_schema.get("required", []))
        for name, p in props.items():
            check(not isinstance(p.get("type"), list), f"{t.name}.{name}: one type, not {p.get('type')}")
            if name not in required:
                check(p.get("type") in ("integer", "string"), f"{t.name}.{name}: typed {p.get('type')}")


def structured(result, tool):
    check(not result.is_error, f"{tool}: isError: {result.content}")
    check(isinstance(result.structured_content, dict), f"{tool}: no structuredContent")
    return result.structured_content


async def session(ragger, env):
    params = StdioServerParameters(command=ragger, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check(init.server_info.name == "ragger", f"serverInfo: {init.server_info}")
            tools = (await s.list_tools()).tools
            check_schemas(tools)

            out = structured(await s.call_tool("list_projects", {}), "list_projects")
            shop = [p for p in out["projects"] if p["project"] == "shop"]
            check(
                shop and shop[0]["sessions"] == 1 and shop[0]["turns"] == 2
                and shop[0]["name"] == "shop" and shop[0]["root"] is None,
                f"list_projects: {out}",
            )

            out = structured(
                await s.call_tool("show_session", {"session": "s1", "offset": 0, "limit": 1, "max_chars": 100}),
                "show_session",
            )
            check(len(out["turns"]) == 1 and out["truncated"] and out["next_offset"] == 1, f"show_session: {out}")
            out = structured(await s.call_tool("show_session", {"session": "s1", "offset": 1}), "show_session")
            check(out["turns"][0]["n"] == 2 and out["next_offset"] is None, f"show_session page 2: {out}")

            out = structured(await s.call_tool("recent", {"project": "shop", "limit": 3}), "recent")
            check(isinstance(out["segments"], list), f"recent: {out}")

            r = await s.call_tool("context", {"project": "shop", "limit_tokens": 800, "query": "login"})
            out = structured(r, "context")
            result_text = r.content[0].text
            check(out["project"] == "shop" and result_text == out["markdown"], f"context: {out}")

            out = structured(
                await s.call_tool("remember", {"text": "Deploys go out on Tuesdays, never Fridays.", "project": "shop"}),
                "remember",
            )
            check(out["stored"] and out["project"] == "shop", f"remember: {out}")
            note_session = out["session"]

            for query, session_id in (("flaky login cookie", "s1"), ("deploys Fridays", note_session)):
                r = await s.call_tool("search", {"query": query, "limit": 5, "project": "shop"})
                out = structured(r, "search")
                check(any(h["session"] == session_id for h in out["hits"]), f"search {query!r}: {out}")
                text = json.loads(r.content[0].text)
                check(text == out, "search: the text block is the structured content")


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: mcp-sdk.py RAGGER_BINARY")
    ragger = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ragger-mcp-sdk-") as root:
        env = scratch_env(root)
        capture(ragger, env, "s1", "The login test is flaky; fix it", "Waiting for the session cookie fixed it.")
        capture(ragger, env, "s1", "Now the signup test", "It needed the same cookie wait.")
        asyncio.run(session(ragger, env))
    print(f"mcp-sdk: ok: {len(TOOLS)} tools listed and called through the MCP Python SDK")


if __name__ == "__main__":
    main()
