#!/usr/bin/env python3
"""Checks the links and the commands of README.md and docs/**/*.md (standard library only).

  tests/docs_check.py [build/tycoon]

Links: every relative link and image ([text](target), ![alt](target), [name]: target, and the
href/src of HTML tags) must resolve to a file or folder of the repository, and a link to
`file.md#anchor` (or `#anchor` within the page) to a heading of that file, slugged as GitHub does.

Commands: in fenced code blocks whose info string is empty, sh, bash, shell or console, each
command (continuation lines joined; leading VAR=value assignments skipped; each part of a line
split on &&, ||, ; and |) that starts with build/..., ./build/..., tycoon, scripts/ or tests/
must name a program that exists: scripts/ and tests/ an executable file, build/<name> a file
there or a target of CMakeLists.txt. For `build/tycoon <subcommand> [<subcommand>] ...` each
subcommand must exist and every --flag of the line must appear in the output of
`build/tycoon <subcommand...> --help` (placeholders such as <command> skip the subcommand check),
and a data path it names (scenarios/, docs/, models/, hardware_db/, calibration/data/) must exist
unless it follows an output flag.

A command that needs what CI does not have (a GPU, a cluster) is marked as an example and only
its program is checked against nothing: a fence info string containing `example` (```sh example),
an HTML comment <!-- example --> on the line before the fence, or a trailing `# example` comment
on the command's line.

Prints each failure as file:line: reason and a one-line summary; exits 1 on any failure.
"""
import os
import re
import shlex
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL_INFO = {"", "sh", "bash", "shell", "console"}
DATA_PREFIXES = ("scenarios/", "docs/", "models/", "hardware_db/", "calibration/data/")
OUTPUT_FLAGS = {"--out", "--report", "--json-out", "--save"}
FENCE_RE = re.compile(r"^( {0,3}|\s*)(`{3,}|~{3,})(.*)$")


def md_files():
    files = [os.path.join(ROOT, "README.md")]
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "docs")):
        dirnames.sort()
        files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".md")]
    return files


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, ROOT)


def split_blocks(lines):
    """Returns (prose, blocks): prose is the file with fenced blocks blanked (line numbers kept);
    blocks is a list of (info, marked_example, [(line_number, text), ...])."""
    prose, blocks = [], []
    fence, info, body, marked = None, "", [], False
    for i, line in enumerate(lines, 1):
        m = FENCE_RE.match(line)
        if fence is None:
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                fence, info, body = m.group(2), m.group(3).strip(), []
                before = [l.strip() for l in lines[: i - 1] if l.strip()]
                marked = bool(before) and before[-1] == "<!-- example -->"
                prose.append("")
            else:
                prose.append(line)
        else:
            prose.append("")
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence) and not m.group(3).strip():
                blocks.append((info, marked, body))
                fence = None
            else:
                body.append((i, line))
    return prose, blocks


# ---------- headings and anchors (GitHub's slugs)


def heading_text_to_slug(text):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*)", "", text)
    text = text.strip().lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or ch == " " or cat[0] in "LN" or cat == "Mn":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    lines = read(path).split("\n")
    prose, _ = split_blocks(lines)
    seen, anchors = {}, set()

    def add(slug):
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")

    for i, line in enumerate(prose):
        m = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            add(heading_text_to_slug(m.group(2)))
        elif i > 0 and re.match(r"^ {0,3}(=+|-+)\s*$", line) and prose[i - 1].strip() \
                and not re.match(r"^ {0,3}(#|[-*+] |\d+\. |\|)", prose[i - 1]):
            add(heading_text_to_slug(prose[i - 1]))
        for a in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
            anchors.add(a)
    cache[path] = anchors
    return anchors


# ---------- links

LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
HTML_RE = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.I)


def check_links(path, prose, failures):
    text = "\n".join(prose)
    # Code spans hold text, not links: blank them (same length, so offsets keep their lines).
    text = re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), text, flags=re.S)
    targets = []
    for rx in (LINK_RE, REFDEF_RE, HTML_RE):
        for m in rx.finditer(text):
            targets.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    for line, target in targets:
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
            continue  # http:, https:, mailto: ...
        where = f"{rel(path)}:{line}"
        file_part, _, anchor = target.partition("#")
        if file_part:
            base = ROOT if file_part.startswith("/") else os.path.dirname(path)
            dest = os.path.normpath(os.path.join(base, file_part.lstrip("/")))
            if not dest.startswith(ROOT + os.sep) and dest != ROOT:
                failures.append(f"{where}: link '{target}' leaves the repository")
                continue
            if not os.path.exists(dest):
                failures.append(f"{where}: dead link '{target}': {rel(dest)} does not exist")
                continue
        else:
            dest = path
        if anchor and dest.endswith(".md") and os.path.isfile(dest):
            if anchor not in anchors_of(dest):
                failures.append(f"{where}: link '{target}': {rel(dest)} has no heading with anchor '#{anchor}'")
    return len(targets)


# ---------- commands


def strip_comment(line):
    """Removes a shell comment (a # at a word start, outside quotes); returns (code, comment)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i], line[i + 1:]
    return line, ""


def logical_lines(body):
    """Joins backslash continuations: yields (first line number, code, comment)."""
    out, start, parts, comment = [], None, [], ""
    for number, raw in body:
        code, c = strip_comment(raw)
        if start is None:
            start, comment = number, c
        parts.append(code.rstrip())
        if parts[-1].endswith("\\"):
            parts[-1] = parts[-1][:-1]
            continue
        out.append((start, " ".join(p.strip() for p in parts), comment))
        start, parts, comment = None, [], ""
    if start is not None:
        out.append((start, " ".join(p.strip() for p in parts), comment))
    return out


def tokens_of(code):
    try:
        return shlex.split(code, posix=True)
    except ValueError:  # an unbalanced quote: words are enough here
        return code.split()


def segments(tokens):
    """Splits a command line at &&, ||, ; and at a | followed by a program (`cmd | tail -4`); a |
    between alternatives of a synopsis (`(--save F | --commands L)`) does not split it."""
    seg = []
    for k, t in enumerate(tokens):
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        if t in ("&&", "||", ";") or (t == "|" and nxt and not nxt.startswith("-")):
            if seg:
                yield seg
            seg = []
        else:
            seg.append(t)
    if seg:
        yield seg


class Tycoon:
    def __init__(self, binary):
        self.binary = binary
        self.helps = {}

    def help(self, path):
        if path not in self.helps:
            try:
                p = subprocess.run([self.binary, *path, "--help"], capture_output=True, text=True, timeout=60)
                self.helps[path] = (p.returncode, p.stdout + p.stderr)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.helps[path] = (-1, str(e))
        return self.helps[path]

    def subcommands(self, path):
        rc, text = self.help(path)
        names, inside = set(), False
        for line in text.split("\n"):
            if re.match(r"^\s*subcommands:\s*$", line, re.I):
                inside = True
            elif inside:
                m = re.match(r"^\s+([A-Za-z0-9][\w-]*)(\s|$)", line)
                if m:
                    names.add(m.group(1))
                elif line.strip():
                    inside = False
        return names

    def flags(self, path):
        """The option names of CLI11's help (`  -h,--help  ...`, `  --out TEXT  ...`), not the
        flags its descriptions mention."""
        names = set()
        for line in self.help(path)[1].split("\n"):
            m = re.match(r"^\s+(-\S+)", line)
            if m:
                names.update(n for n in m.group(1).split(",") if n.startswith("--"))
        return names


def is_placeholder(token):
    return token.startswith("<") or token.upper() == token and token.isalpha() or "…" in token or "..." in token


def check_program(seg, tycoon, where, failures):
    prog = seg[0]
    if prog.startswith("./"):
        prog = prog[2:]
    if prog in ("tycoon", "build/tycoon"):
        return check_tycoon(seg[1:], tycoon, where, failures)
    path = os.path.join(ROOT, prog)
    if prog.startswith("build/"):
        name = os.path.basename(prog)
        cmake = read(os.path.join(ROOT, "CMakeLists.txt"))
        known = os.path.isfile(path) or re.search(r"add_executable\(\s*" + re.escape(name) + r"[\s)]", cmake) \
            or (name.startswith("fuzz_") and os.path.isfile(os.path.join(ROOT, "tests", "fuzz", name + ".cpp")))
        if not known:
            failures.append(f"{where}: '{seg[0]}' is neither built nor a target of CMakeLists.txt")
    elif not os.path.isfile(path):
        failures.append(f"{where}: '{seg[0]}' does not exist")
    elif not os.access(path, os.X_OK):
        failures.append(f"{where}: '{seg[0]}' is not executable")


def check_tycoon(args, tycoon, where, failures):
    rc, text = tycoon.help(())
    if rc != 0:
        failures.append(f"{where}: '{tycoon.binary} --help' failed ({rc}): {text.strip()[:200]}")
        return
    path, i = (), 0
    while i < len(args) and args[i].startswith("-"):
        i += 1  # flags before the subcommand (checked at the top level below)
    top_flags = args[:i]
    placeholder = False
    if i < len(args):
        sub = args[i]
        if is_placeholder(sub):
            placeholder = True
        elif sub not in tycoon.subcommands(()):
            failures.append(f"{where}: 'tycoon {sub}': no such subcommand (tycoon --help lists "
                            f"{', '.join(sorted(tycoon.subcommands(())))})")
            return
        else:
            path = (sub,)
            i += 1
            while i < len(args) and args[i] in tycoon.subcommands(path):
                path += (args[i],)
                i += 1
    known_top = tycoon.flags(())
    for t in top_flags:
        flag = t.split("=")[0]
        if flag.startswith("--") and flag not in known_top:
            failures.append(f"{where}: 'tycoon {flag}': not in the output of tycoon --help")
    known = tycoon.flags(path)
    shown = "tycoon " + " ".join(path) if path else "tycoon"
    rest = args[i:]
    for t in rest:
        for flag in re.findall(r"(?<![\w-])(--[A-Za-z0-9][\w-]*)", t):
            if flag not in known:
                failures.append(f"{where}: '{shown} {flag}': not in the output of {shown} --help")
    if placeholder:
        return
    for k, t in enumerate(rest):
        if t.startswith(DATA_PREFIXES) and not is_placeholder(t) and not any(c in t for c in "<>*|[]"):
            if k > 0 and rest[k - 1] in OUTPUT_FLAGS:
                continue
            if not os.path.exists(os.path.join(ROOT, t)):
                failures.append(f"{where}: '{shown}' names {t}, which does not exist")


def check_commands(path, blocks, tycoon, failures):
    count = 0
    for info, marked, body in blocks:
        words = info.replace("{", " ").replace("}", " ").replace(",", " ").replace(".", " ").split()
        lang = words[0] if words and words[0] != "example" else ""
        if lang not in SHELL_INFO:
            continue
        example = marked or "example" in words
        for number, code, comment in logical_lines(body):
            where = f"{rel(path)}:{number}"
            code = re.sub(r"^\s*\$\s+", "", code)
            for seg in segments(tokens_of(code)):
                while seg and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", seg[0]):
                    seg = seg[1:]
                if not seg or not re.match(r"^(\./)?(build/|tycoon$|scripts/|tests/)", seg[0]):
                    continue
                count += 1
                if example or comment.strip().startswith("example"):
                    continue
                check_program(seg, tycoon, where, failures)
    return count


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/tycoon"
    if not os.path.isabs(binary) and not os.path.exists(binary):
        binary = os.path.join(ROOT, binary)
    failures = []
    if not os.path.isfile(binary):
        failures.append(f"{binary}: no such program (build it first, or pass its path)")
    tycoon = Tycoon(os.path.abspath(binary))
    links = commands = 0
    for path in md_files():
        lines = read(path).split("\n")
        prose, blocks = split_blocks(lines)
        links += check_links(path, prose, failures)
        if os.path.isfile(binary):
            commands += check_commands(path, blocks, tycoon, failures)
    for f in failures:
        print(f)
    print(f"docs_check: {len(md_files())} files, {links} links, {commands} commands checked, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
