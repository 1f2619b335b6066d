# sig2.py DELAY SIG LOGNAME ARGS...: start verlpp ARGS (SIGINT at its default, unlike a bash `&` job),
# wait for the "step:$STEP -" line (20 unless STEP is set), send SIG, sleep DELAY (negative: until the
# trainer prints "stopped by signal", i.e. its loop has ended), send SIG again; print the return code
# (Python's: negative when the process died of that signal) and the log's last non-step line.
import os, signal, subprocess, sys, time
delay, sig, name, args = float(sys.argv[1]), getattr(signal, sys.argv[2]), sys.argv[3], sys.argv[4:]
log = open(f"logs/{name}.log", "w+")
p = subprocess.Popen(["/work/main/build/verlpp"] + args, stdout=log, stderr=subprocess.STDOUT)
deadline = time.time() + 100
while time.time() < deadline:
    log.flush(); log.seek(0)
    if "\nstep:%s - " % os.environ.get("STEP", "20") in log.read(): break
    time.sleep(0.01)
p.send_signal(sig)
if delay >= 0: time.sleep(delay)
else:  # negative: the second copy right after the trainer says it stopped (the loop has ended)
    while p.poll() is None:
        log.flush(); log.seek(0)
        if "stopped by signal" in log.read(): break
        time.sleep(0.001)
try: p.send_signal(sig)
except ProcessLookupError: pass
rc = p.wait(timeout=100)
log.seek(0); lines = [l for l in log.read().splitlines() if not l.startswith("step:")]
print(f"delay={delay} returncode={rc} last={lines[-1][:110]!r}")
