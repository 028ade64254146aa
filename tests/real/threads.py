# Python threads for check-real: queue.Queue, RLock, ThreadPoolExecutor with
# GIL-releasing work, Barrier/Semaphore/Condition/Event, subprocesses started
# from threads, a shared sqlite3 connection, and os.fork. Exits with status 3.
import threading, queue, hashlib, concurrent.futures, sys, zlib, subprocess, sqlite3, os

# producer/consumer through queue.Queue (Condition + Lock)
q = queue.Queue(maxsize=16)
results = {}
rlock = threading.RLock()
def producer(n):
    for i in range(n):
        q.put(i)
    for _ in range(3):
        q.put(None)
def consumer(k):
    local = 0
    while True:
        item = q.get()
        if item is None:
            break
        local += hashlib.sha256(str(item).encode()).digest()[0]
        q.task_done()
    with rlock:
        with rlock:
            results[k] = local
threads = [threading.Thread(target=consumer, args=(k,)) for k in range(3)]
for t in threads: t.start()
producer(20000)
for t in threads: t.join()
print("queue sum", sum(results.values()))

# thread pool with GIL-releasing work
data = [bytes((i * j) & 255 for j in range(20000)) for i in range(64)]
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
    digests = list(ex.map(lambda b: hashlib.sha1(zlib.compress(b, 6)).hexdigest(), data))
print("pool", hashlib.md5("".join(digests).encode()).hexdigest())

# barrier, events, semaphores, conditions
bar = threading.Barrier(4)
sem = threading.BoundedSemaphore(2)
cond = threading.Condition()
counter = [0]
ev = threading.Event()
def worker(k):
    bar.wait()
    for i in range(2000):
        with sem:
            with cond:
                counter[0] += 1
                cond.notify_all()
    ev.wait()
ws = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for w in ws: w.start()
with cond:
    cond.wait_for(lambda: counter[0] == 8000)
ev.set()
for w in ws: w.join()
print("counter", counter[0])

# subprocesses started from several threads (fork/exec in a threaded process)
def run(i):
    return subprocess.run(["/bin/echo", "child", str(i)], capture_output=True, text=True).stdout.strip()
with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
    print(sorted(ex.map(run, range(6))))

# one sqlite3 connection shared by threads under a lock
db = sqlite3.connect(":memory:", check_same_thread=False)
db.execute("create table t(x)")
lk = threading.Lock()
def ins(k):
    for i in range(500):
        with lk:
            db.execute("insert into t values (?)", (k * 1000 + i,))
ts = [threading.Thread(target=ins, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("sqlite", db.execute("select count(*), sum(x) from t").fetchone())

# fork while other threads exist
stop = threading.Event()
bg = threading.Thread(target=lambda: stop.wait())
bg.start()
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    print("in child"); sys.stdout.flush(); os._exit(7)
_, st = os.waitpid(pid, 0)
stop.set(); bg.join()
print("child status", os.waitstatus_to_exitcode(st))
sys.exit(3)
