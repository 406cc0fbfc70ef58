#!/usr/bin/env python3
"""Append turns of a Claude Code session transcript, shaped as Claude Code
2.0 writes them (see tests/fixtures/claude-code.jsonl): per turn a prompt,
the model's thinking, three tool calls (Read, Bash, Edit) each with its
result record (`toolUseResult` repeating the output, as Claude Code keeps
it), a file-history snapshot and the reply in words. A turn is about 20 KB
of JSON Lines, most of it tool output that ragger keeps as one short line.

Usage: claude_transcript.py N FILE FIRST [--stop STOP_JSON]
  appends turns FIRST .. FIRST+N-1 to FILE; with --stop, writes the Stop
  hook's input for the last of them (with `last_assistant_message`) there.
"""
import json
import sys

SESSION = "6a1f0c3e-2b4d-4c8e-9f10-3d5e7a9b1c2d"
CWD = "/home/dev/src/bench"


def base(uuid, parent, ts):
    return dict(parentUuid=parent, isSidechain=False, userType="external", cwd=CWD, sessionId=SESSION,
                version="2.0.31", gitBranch="main", uuid=uuid, timestamp=ts)


def source(i, lines):
    return "".join(f"{n:>6}\u2192    let part_{i}_{n} = config.get(\"backup.job.{n}\").unwrap_or_default();\n"
                   for n in range(1, lines + 1))


def turn(i):
    ts = f"2026-11-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
    u = lambda k: f"00000000-0000-4000-8000-{i:08d}{k:04d}"
    reply = (f"The nightly backup job {i % 97} failed because the disk of host {i % 13} was full: restic could not "
             f"write its pack files. I rotated the archives older than 30 days, added a retention rule to "
             f"src/backup/job_{i}.rs and a check that stops the job with a clear message when less than 5% is free. "
             f"The test suite passes.")
    file_text = source(i, 60)
    stdout = "".join(f"test backup::job_{i}::case_{k} ... ok\n" for k in range(40))
    msg = lambda k, content, stop: dict(model="claude-sonnet-4-5-20250929", id=f"msg_{i:06d}{k}", type="message",
                                        role="assistant", content=content, stop_reason=stop,
                                        usage=dict(input_tokens=1200 + k, output_tokens=80 + k,
                                                   cache_read_input_tokens=24000))
    recs = [
        dict(type="file-history-snapshot", messageId=u(0),
             snapshot=dict(messageId=u(0), trackedFileBackups={}, timestamp=ts), isSnapshotUpdate=False),
        dict(base(u(0), f"00000000-0000-4000-8000-{i - 1:08d}0008" if i else None, ts), type="user",
             message=dict(role="user", content=f"Turn {i}: the nightly backup job {i % 97} failed again. Why, and "
                                               f"can you make it fail loudly next time?")),
        dict(base(u(1), u(0), ts), type="assistant", requestId=f"req_{i}a",
             message=msg(1, [dict(type="thinking", thinking="Look at the job's source and its last log first. " * 8,
                                  signature="EqQBCkYIBxgC" * 20)], None)),
        dict(base(u(2), u(1), ts), type="assistant", requestId=f"req_{i}a",
             message=msg(2, [dict(type="tool_use", id=f"toolu_{i}r", name="Read",
                                  input=dict(file_path=f"{CWD}/src/backup/job_{i}.rs"))], "tool_use")),
        dict(base(u(3), u(2), ts), type="user",
             message=dict(role="user", content=[dict(tool_use_id=f"toolu_{i}r", type="tool_result",
                                                     content=file_text)]),
             toolUseResult=dict(type="text", file=dict(filePath=f"{CWD}/src/backup/job_{i}.rs", content=file_text,
                                                       numLines=60, startLine=1, totalLines=60))),
        dict(base(u(4), u(3), ts), type="assistant", requestId=f"req_{i}b",
             message=msg(4, [dict(type="tool_use", id=f"toolu_{i}b", name="Bash",
                                  input=dict(command=f"cargo test backup::job_{i}",
                                             description="Run the job's tests"))], "tool_use")),
        dict(base(u(5), u(4), ts), type="user",
             message=dict(role="user", content=[dict(tool_use_id=f"toolu_{i}b", type="tool_result",
                                                     content=stdout, is_error=False)]),
             toolUseResult=dict(stdout=stdout, stderr="", interrupted=False, isImage=False)),
        dict(base(u(6), u(5), ts), type="assistant", requestId=f"req_{i}c",
             message=msg(6, [dict(type="tool_use", id=f"toolu_{i}e", name="Edit",
                                  input=dict(file_path=f"{CWD}/src/backup/job_{i}.rs",
                                             old_string=file_text[:800], new_string=file_text[:800] + "// checked\n"))],
                         "tool_use")),
        dict(base(u(7), u(6), ts), type="user",
             message=dict(role="user", content=[dict(tool_use_id=f"toolu_{i}e", type="tool_result",
                                                     content=f"The file {CWD}/src/backup/job_{i}.rs has been updated.")]),
             toolUseResult=dict(filePath=f"{CWD}/src/backup/job_{i}.rs", oldString=file_text[:800],
                                newString=file_text[:800] + "// checked\n", originalFile=file_text,
                                structuredPatch=[dict(oldStart=1, oldLines=12, newStart=1, newLines=13,
                                                      lines=file_text[:800].splitlines())])),
        dict(base(u(8), u(7), ts), type="assistant", requestId=f"req_{i}d",
             message=msg(8, [dict(type="text", text=reply)], "end_turn")),
    ]
    return recs, reply


def main():
    args = sys.argv[1:]
    stop = None
    if "--stop" in args:
        k = args.index("--stop")
        stop = args[k + 1]
        del args[k:k + 2]
    n, path, first = int(args[0]), args[1], int(args[2])
    reply = ""
    with open(path, "a") as f:
        for i in range(first, first + n):
            recs, reply = turn(i)
            for r in recs:
                f.write(json.dumps(r) + "\n")
    if stop:
        with open(stop, "w") as f:
            json.dump(dict(session_id=SESSION, transcript_path=path, cwd=CWD, permission_mode="default",
                           hook_event_name="Stop", stop_hook_active=False, last_assistant_message=reply), f)


if __name__ == "__main__":
    main()
