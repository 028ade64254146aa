# Kernel lockdep/-rt reports (the seed's xfrm_policy one first) and
# hand-written rtdd lock-order-inversion/deadlock logs: kinds, titles,
# frames, de-duplication across boots and across the threads of a cycle.
. tests/analyze/lib.sh

# The seed: an -rt report quoted in a mail must be an active-lock-freed finding with its frames.
run_analyze 1 --format=json "$FIX/seed_xfrm_policy.txt"
json "$WORK/out" 'len(d["findings"]) == 1 and d["problems"] == []'
json "$WORK/out" 'd["findings"][0]["kind"] == "active-lock-freed" and d["findings"][0]["severity"] == "BUG"'
json "$WORK/out" 'd["findings"][0]["title"] == "active lock freed in xfrm_policy_gc_task"'
json "$WORK/out" '[f["function"] for f in d["findings"][0]["stacks"][0]["frames"]] == ["dump_stack", "check_no_locks_freed", "kfree", "xfrm_policy_gc_task", "worker_thread", "kthread", "kernel_thread_helper"]'
json "$WORK/out" 'd["findings"][0]["first_seen"]["line"] == 29'
json "$WORK/out" 'd["findings"][0]["headline"] == "BUG: events/0/4, active lock [e94a8cdc(e94a8cd0-e94a90dc)] freed!"'

# The same lockdep report from two boots (timestamps or not, other offsets,
# an .isra clone): one finding, counted twice, with its cycle.
run_analyze 1 --format=json "$FIX/kernel_lockdep_circular.log" "$FIX/kernel_lockdep_circular_plain.log"
json "$WORK/out" 'len(d["findings"]) == 1 and d["findings"][0]["count"] == 2'
json "$WORK/out" 'd["findings"][0]["kind"] == "lock-order-inversion"'
json "$WORK/out" 'd["findings"][0]["title"] == "possible deadlock in cfg_update"'
json "$WORK/out" 'd["findings"][0]["cycle"] == ["cfg_lock", "&dev->mutex", "cfg_lock"]'
json "$WORK/out" 'len(d["findings"][0]["logs"]) == 2'

# lockdep-RCU's "suspicious RCU usage": the kind of the same headline, located by the
# backtrace of the dereference, not by the lock it lists as held.
run_analyze 1 --format=json "$FIX/kernel_suspicious_rcu.txt"
json "$WORK/out" 'len(d["findings"]) == 1 and d["findings"][0]["kind"] == "rcu-unprotected-dereference"'
json "$WORK/out" 'd["findings"][0]["title"] == "RCU pointer dereferenced unprotected in ip_route_output_key_hash"'

# rtdd's own cycle reports: the two threads of one cycle are one finding; a deadlock is another.
run_analyze 1 --format=json "$FIX/rtdd_loi_a.log" "$FIX/rtdd_loi_b.log" "$FIX/rtdd_deadlock.log"
json "$WORK/out" 'sorted((f["kind"], f["count"]) for f in d["findings"]) == [("deadlock", 1), ("lock-order-inversion", 2)]'
json "$WORK/out" '[f for f in d["findings"] if f["kind"] == "deadlock"][0]["cycle"][-1] == "acct_lock"'
json "$WORK/out" '[f for f in d["findings"] if f["kind"] == "lock-order-inversion"][0]["first_seen"]["time"] == "2026-12-03T08:10:00.100Z"'
json "$WORK/out" '[f for f in d["findings"] if f["kind"] == "lock-order-inversion"][0]["last_seen"]["time"] == "2026-12-03T09:00:00.000Z"'

# The summary for people, as REPORT-EXAMPLES.md sketches it.
run_analyze 1 "$FIX"/*.log "$FIX/seed_xfrm_policy.txt"
has "$WORK/out" "4 findings in 6 logs (4 new, 0 in baseline), 0 reports suppressed"
has "$WORK/out" "  count  kind"
has "$WORK/out" "lock-order-inversion  possible deadlock in cfg_update"
finish
