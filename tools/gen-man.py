#!/usr/bin/env python3
"""Write the manual pages gdrcheck(8) and gdrcheck-COMMAND(8) from --help.

The help texts in the program are the one source: this script runs the
built binary and turns each help into roff, section by section, so a page
cannot say something the program's own --help does not.

  gen-man.py GDRCHECK VERSION DOCDIR OUTDIR COMMAND...

COMMAND... is the list of pages the build installs (docs/meson.build); the
script fails when the program's command table names one that list lacks, or
the other way round, so a new command cannot ship without its page.

The help layout it reads (every command follows it):
  Usage: lines, continuation lines indented         -> SYNOPSIS
  paragraphs at column 0                            -> DESCRIPTION
  "Options:" / "Commands:" / "Input (one of):" ...  -> OPTIONS, COMMANDS, sub-sections
  "  -x, --long ARG   text" and indented text       -> tagged paragraphs
  a paragraph starting "Exit status:"               -> EXIT STATUS
"""
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"^( {2}| {4}| {6})([-a-zA-Z\[].*?)(?: {2,}(\S.*))?$")
HEADER = re.compile(r"^[A-Z][A-Za-z ()]*:$")


def help_text(gdrcheck, args):
    env = dict(os.environ, LC_ALL="C", NO_COLOR="1")
    p = subprocess.run([gdrcheck] + args + ["--help"], capture_output=True, text=True, env=env)
    if p.returncode != 0 or not p.stdout.startswith("Usage:"):
        raise SystemExit(f"gen-man: '{' '.join(['gdrcheck'] + args)} --help' failed: {p.stderr.strip()}")
    return p.stdout


def esc(text):
    """Plain text as roff: backslashes, option dashes, a leading dot or quote."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w.])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def parse(text):
    """(synopsis lines, blocks): blocks are ('para', text), ('header', name), ('entry', term, text)."""
    lines = text.rstrip("\n").split("\n")
    synopsis = []
    i = 0
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        if line.startswith("Usage: "):
            synopsis.append(line[len("Usage: "):])
        elif line.startswith("       "):
            synopsis.append(line[7:])
        else:
            raise SystemExit(f"gen-man: unexpected synopsis line {line!r}")
        i += 1
    blocks = []
    para = []

    def flush():
        if para:
            blocks.append(("para", " ".join(para)))
            para.clear()

    for line in lines[i:]:
        if not line.strip():
            flush()
            continue
        if HEADER.match(line):
            flush()
            blocks.append(("header", line[:-1]))
            continue
        m = ENTRY.match(line)
        if m and not line.startswith(" " * 8):
            flush()
            blocks.append(["entry", m.group(2).strip(), m.group(3) or ""])
            continue
        if line.startswith(" ") and blocks and blocks[-1][0] == "entry" and not para:
            blocks[-1][2] = (blocks[-1][2] + " " + line.strip()).strip()
            continue
        if line.startswith(" ") and not para:
            flush()
            blocks.append(("indented", line.strip()))
            continue
        if line.startswith("Exit status:"):
            flush()
        para.append(line.strip())
    flush()
    return synopsis, blocks


def roff(name, summary, version, synopsis, blocks, see_also, docdir):
    out = [f'.TH {name.upper()} 8 "" "gdrcheck {version}" "gdrcheck"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}",
           ".SH SYNOPSIS", ".nf"]
    out += [esc(s) for s in synopsis]
    out += [".fi", ".SH DESCRIPTION"]
    section = "DESCRIPTION"
    for b in blocks:
        if b[0] == "header":
            title = b[1].upper()
            if title in ("OPTIONS", "COMMANDS"):
                out.append(f".SH {title}")
                section = title
            else:
                if section not in ("OPTIONS", "COMMANDS"):
                    out.append(".SH OPTIONS")
                    section = "OPTIONS"
                out.append(f'.SS "{b[1]}"')
        elif b[0] == "entry":
            # An option after the command list (the main help's -h, -V).
            if b[1].startswith("-") and section not in ("OPTIONS",):
                out.append(".SH OPTIONS")
                section = "OPTIONS"
            out += [".TP", f"\\fB{esc(b[1])}\\fR"]
            if b[2]:
                out.append(esc(b[2]))
        elif b[0] == "indented":
            out += [".IP", esc(b[1])]
        elif b[1].startswith("Exit status:"):
            out += [".SH EXIT STATUS", esc(b[1][len("Exit status:"):].strip())]
            section = "EXIT STATUS"
        else:
            out += [".PP", esc(b[1])]
    out += [".SH SEE ALSO", ",\n".join(f".BR {p} (8)" for p in see_also)]
    out += [".PP", esc(f"The documentation installed in {docdir}: README.md and docs/*.md.")]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 6:
        raise SystemExit(__doc__)
    gdrcheck, version, docdir, outdir = sys.argv[1:5]
    pages = sys.argv[5:]
    main_help = help_text(gdrcheck, [])
    synopsis, blocks = parse(main_help)
    commands = {}
    in_commands = False
    for b in blocks:
        if b[0] == "header":
            in_commands = b[1] == "Commands"
        elif b[0] == "para":
            in_commands = False
        elif b[0] == "entry" and in_commands:
            commands[b[1]] = b[2]
    if sorted(commands) != sorted(pages):
        raise SystemExit(f"gen-man: the program's commands {sorted(commands)} are not the pages "
                         f"docs/meson.build installs {sorted(pages)}")
    summary = next(b[1] for b in blocks if b[0] == "para").split("?")[0] + "?"
    for b in blocks:
        if b[0] == "entry" and b[1] in commands:
            b[2] += f" (gdrcheck-{b[1]}(8))"
    everything = ["gdrcheck-" + c for c in pages]
    text = roff("gdrcheck", summary, version, synopsis, blocks, everything, docdir)
    with open(os.path.join(outdir, "gdrcheck.8"), "w") as f:
        f.write(text)
    for c in pages:
        synopsis, blocks = parse(help_text(gdrcheck, [c]))
        see = ["gdrcheck"] + [p for p in everything if p != "gdrcheck-" + c]
        text = roff("gdrcheck-" + c, commands[c], version, synopsis, blocks, see, docdir)
        with open(os.path.join(outdir, f"gdrcheck-{c}.8"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
