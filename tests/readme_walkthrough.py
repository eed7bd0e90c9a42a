#!/usr/bin/env python3
"""The README's walk-through at 80x24 works as written.

The section between `<!-- walk-through: ... -->` and `<!-- walk-through: end -->` in
README.md is read in document order:
  - `spadmap NET [options]` (a code span starting with "spadmap "): the explorer it
    opens (once, before any key);
  - <kbd>K</kbd>: keys pressed, replayed with `spadmap snapshot NET --size 80x24
    --keys ...`; Enter, Esc, Tab, Left, ... are those keys, anything else is typed;
  - any other `code` span: text that must be on the 80x24 screen after the keys
    before it, within one row, as whole words and figures (runs of spaces count as
    one, as the eye reads them).
Each quote is also checked to be specific: the same quote with one figure (or, with
none, one letter) changed must not be on that screen, so a wrong figure in the
README cannot pass by matching something else.
And every picture README.md shows is drawn by a lesson stage: screenshots/make.sh
makes it with `lesson NAME LESSON STAGE` (spadmap lesson LESSON --stage STAGE), and
that lesson has that stage.
usage: readme_walkthrough.py SPADMAP README.md
"""
import html, json, os, re, shlex, subprocess, sys

binary, readme = sys.argv[1], sys.argv[2]
KEYS = {'Enter', 'Esc', 'Tab', 'S-Tab', 'Left', 'Right', 'Up', 'Down', 'Home', 'End', 'PgUp', 'PgDn'}
SIZE = '80x24'

text = open(readme, encoding='utf-8').read()
m = re.search(r'<!--\s*walk-through:.*?-->(.*?)<!--\s*walk-through:\s*end\s*-->', text, re.S)
if not m:
    sys.exit('readme_walkthrough: no walk-through section (<!-- walk-through: ... --> ... <!-- walk-through: end -->) in ' + readme)
section = m.group(1)
steps = re.findall(r'^\d+\. ', section, re.M)

def key_script(k):
    k = html.unescape(k)
    if k in KEYS:
        return '<' + k + '>'
    return k.replace('<', '<lt>')

screens = {}
def screen(net, opts, keys):
    if keys not in screens:
        r = subprocess.run([binary, 'snapshot', net, '--size', SIZE, '--keys', keys] + opts,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit('readme_walkthrough: spadmap snapshot %s --keys %r: exit %d\n%s' % (net, keys, r.returncode, r.stderr))
        screens[keys] = [' '.join(row.split()) for row in r.stdout.splitlines()]
    return screens[keys]

def shows(row, quote):
    """quote is in row as whole words and figures (spills 1 is not in spills 11)"""
    for m in re.finditer(re.escape(quote), row):
        before = row[m.start() - 1] if m.start() > 0 else ' '
        after = row[m.end():m.end() + 2]
        if before.isalnum() and quote[0].isalnum():
            continue
        if after[:1].isalnum() and quote[-1].isalnum():
            continue
        if after[:1] == '.' and after[1:2].isdigit() and quote[-1].isdigit():
            continue
        return True
    return False

def mutated(quote):
    """the quote with one figure changed (or one letter): must not be on the screen"""
    d = re.search(r'\d', quote)
    if d:
        c = quote[d.start()]
        return quote[:d.start()] + ('1' if c != '1' else '2') + quote[d.end():]
    a = re.search(r'[a-z]', quote)
    if a:
        return quote[:a.start()] + ('q' if quote[a.start()] != 'q' else 'z') + quote[a.end():]
    return None

net, opts, keys = None, [], ''
checked = failed = 0
for tok in re.finditer(r'<kbd>(.*?)</kbd>|`([^`]+)`', section, re.S):
    if tok.group(1) is not None:
        if net is None:
            sys.exit('readme_walkthrough: a key (%s) before the `spadmap NET` command' % tok.group(1))
        keys += key_script(tok.group(1))
        continue
    quote = ' '.join(tok.group(2).split())
    if quote.startswith('spadmap '):
        if net is not None:
            sys.exit('readme_walkthrough: a second command: ' + quote)
        args = shlex.split(quote)[1:]
        net, opts = args[0], args[1:]
        continue
    if net is None:
        sys.exit('readme_walkthrough: "%s" before the `spadmap NET` command' % quote)
    rows = screen(net, opts, keys)
    checked += 1
    if not any(shows(row, quote) for row in rows):
        failed += 1
        print('FAIL after keys %r: "%s" is not on the %s screen:' % (keys, quote, SIZE))
        print('\n'.join('  | ' + r for r in rows))
        continue
    wrong = mutated(quote)
    if wrong and any(shows(row, wrong) for row in rows):
        failed += 1
        print('FAIL after keys %r: "%s" is not specific: "%s" is on the screen too' % (keys, quote, wrong))

# the pictures: each one a lesson stage's, as make.sh draws it
root = os.path.dirname(os.path.abspath(readme))
made = {}
for line in open(os.path.join(root, 'screenshots', 'make.sh'), encoding='utf-8'):
    m = re.match(r'\s*lesson\s+(\w+)\s+(\w+)\s+(\d+)\s*$', line)
    if m:
        made[m.group(1)] = (m.group(2), int(m.group(3)))
pictures = re.findall(r'!\[[^\]]*\]\(screenshots/([\w.-]+)\.(?:png|svg)\)', text)
for name in pictures:
    if name not in made:
        failed += 1
        print('FAIL: README.md shows screenshots/%s, which no lesson stage in screenshots/make.sh draws' % name)
        continue
    lesson, stage = made[name]
    path = os.path.join(root, 'data', 'lessons', lesson + '.json')
    n = len(json.load(open(path, encoding='utf-8'))['stages']) if os.path.exists(path) else 0
    if not 1 <= stage <= n:
        failed += 1
        print('FAIL: screenshots/%s: lesson %s has no stage %d' % (name, lesson, stage))
    elif not os.path.exists(os.path.join(root, 'screenshots', name + '.svg')):
        failed += 1
        print('FAIL: screenshots/%s.svg is missing (screenshots/make.sh draws it)' % name)

print('readme_walkthrough: %d pictures checked against the lesson stages in screenshots/make.sh' % len(pictures))
print('readme_walkthrough: %d steps, %d quotes checked at %s after %d keys, %d failed'
      % (len(steps), checked, SIZE, len(keys), failed))
if len(steps) < 5 or checked < 10 or not pictures:
    sys.exit('readme_walkthrough: expected at least 5 steps, 10 quotes and a picture')
sys.exit(1 if failed else 0)
