#!/usr/bin/env python3
"""Every `spadmap ...` command shown in README.md and docs/**/*.md code blocks runs.

A command is a line in a fenced code block that starts with `spadmap` or
`./build/tui/spadmap` (in a console block: after "$ "). Each document's commands run
in order, in a scratch folder where data/, tests/ and build/ point at the real ones
and `spadmap` is the built binary, so `--out plan.json` then `validate ... plan.json`
works as the reader would type it. Not run, and counted:
  - the explorer (`spadmap`, `spadmap NET`, `spadmap tui ...`): interactive;
  - a line whose comment says "(long-running)" or "(interactive)", or every command
    of a block after `<!-- docs-commands: skip (REASON) -->`;
  - a synopsis (placeholders such as NET, F.json, [--option ...], a|b).
A command must exit 0, or the code its comment shows ("# exit 2").
usage: docs_commands.py SOURCE_DIR BUILD_DIR [--list]
"""
import os, re, shlex, subprocess, sys, tempfile, time

src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
list_only = '--list' in sys.argv
binary = os.path.join(build, 'tui', 'spadmap')
PLACEHOLDER = re.compile(r'(\b(NET|PLAN|MODEL|FILE|NAME|ARCH|SIZE|COMMAND|DIR|OP|NET\.json|F\.json|F\.csv|F\.txt|F\.svg|FILE\.csv)\b(?![-_.]\w))|\[--|\.\.\.|\w\|\w')

def docs():
    yield 'README.md'
    for root, _, files in sorted(os.walk(os.path.join(src, 'docs'))):
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.relpath(os.path.join(root, f), src)

def commands(path):
    """(line number, command, expected exit, skip reason or None)"""
    fence, console, skip_block, pending_skip = None, False, None, None
    for no, line in enumerate(open(os.path.join(src, path), encoding='utf-8'), 1):
        line = line.rstrip('\n')
        m = re.match(r'\s*<!--\s*docs-commands:\s*skip\s*(\(.*?\))?\s*-->', line)
        if m and not fence:
            pending_skip = (m.group(1) or '(marked)').strip('()')
            continue
        if re.match(r'\s*```', line):
            if fence is None:
                fence, console = line.strip()[3:], line.strip()[3:] == 'console'
                skip_block, pending_skip = pending_skip, None
            else:
                fence, skip_block = None, None
            continue
        if fence is None:
            continue
        text = line.strip()
        if console:
            if not text.startswith('$ '):
                continue
            text = text[2:]
        elif text.startswith('$ '):
            text = text[2:]
        if not re.match(r'(\./build/tui/)?spadmap(\s|$)', text):
            continue
        cmd, comment = text, ''
        m = re.search(r'\s+#\s(.*)$', text)
        if m:
            cmd, comment = text[:m.start()], m.group(1)
        expect = 0
        m = re.search(r'\bexit (\d+)', comment)
        if m:
            expect = int(m.group(1))
        reason = skip_block
        if not reason:
            m = re.search(r'\((long-running|interactive)[^)]*\)', comment)
            if m:
                reason = m.group(1)
        try:
            words = shlex.split(cmd.split('|')[0])
        except ValueError:
            words = []
        if not reason:
            args = words[1:]
            if not args or args[0] == 'tui' or (not args[0].startswith('-') and
                                                 (args[0].endswith(('.json', '.onnx')) or args[0] in bundled)):
                reason = 'interactive (the explorer)'
            elif PLACEHOLDER.search(cmd.replace('M_R', '').replace('M_H', '').replace('M_P', '')):
                reason = 'synopsis'
        yield no, cmd.strip(), expect, reason

bundled = {f[:-5] for f in os.listdir(os.path.join(src, 'data', 'networks')) if f.endswith('.json')}
ran = skipped = failed = 0
reasons = {}
for doc in docs():
    work = tempfile.mkdtemp(prefix='spadmap-docs-')
    for name, target in (('data', os.path.join(src, 'data')), ('tests', os.path.join(src, 'tests')),
                         ('screenshots', os.path.join(src, 'screenshots')), ('build', build)):
        os.symlink(target, os.path.join(work, name))
    bindir = os.path.join(work, '.bin')
    os.mkdir(bindir)
    os.symlink(binary, os.path.join(bindir, 'spadmap'))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get('PATH', ''))
    env.pop('SPADMAP_DATA', None)
    for no, cmd, expect, reason in commands(doc):
        where = '%s:%d' % (doc, no)
        if reason:
            skipped += 1
            reasons[reason] = reasons.get(reason, 0) + 1
            if list_only:
                print('skip  %-28s %s  (%s)' % (where, cmd, reason))
            continue
        if list_only:
            print('run   %-28s %s' % (where, cmd))
            ran += 1
            continue
        t0 = time.time()
        p = subprocess.run(['sh', '-c', cmd], cwd=work, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        ran += 1
        if p.returncode != expect:
            failed += 1
            print('FAIL  %s: `%s` exited %d, the doc shows %d' % (where, cmd, p.returncode, expect))
            for l in p.stderr.decode(errors='replace').splitlines()[:3]:
                print('      | ' + l)
        else:
            print('ok    %-28s %5.1f s  %s' % (where, time.time() - t0, cmd))
    subprocess.run(['rm', '-rf', work])
print('docs commands: %d run, %d failed, %d skipped (%s)' %
      (ran, failed, skipped, ', '.join('%d %s' % (n, r) for r, n in sorted(reasons.items()))))
sys.exit(1 if failed else 0)
