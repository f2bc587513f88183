"""Summarize one run of run.sh: per-probe verdicts joined with the MCP calls behind them.

usage: summarize.py OUT_DIR        (OUT_DIR/run = the harness's --out, OUT_DIR/mcp = the binding's log)

Buckets (each probe in exactly one):
  pass              the harness's final verdict is pass (every rep)
  refused_by_gate   a rep failed because our safety gate refused a step and confirming it could not
                    be done (the refusal consumed the state); the probe never got the full input
  fail              any other fail / flaky / error verdict
  not_expressible   not measurable because the binding's supports() said our tools cannot express it
  not_measurable    not measurable because no probe surface observes what the entry requires
A probe that passed only after the gate was confirmed (confirm_dangerous=true) is still a pass; the
column `confirmed` counts the gui_action calls that needed it.
"""
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def main(out: str) -> int:
    out = Path(out)
    run = out / "run"
    report = json.loads((run / "report.json").read_text())
    calls = []
    mcp_log = out / "mcp" / "mcp_calls.jsonl"
    if mcp_log.exists():
        calls = [json.loads(l) for l in mcp_log.read_text().splitlines() if l.strip()]
    stats_path = out / "mcp" / "mcp_stats.json"
    stats = json.loads(stats_path.read_text()) if stats_path.exists() else {}

    # rep numbers of the binding (1, 2, ...) in execution order -> (entry, rep)
    order = []
    for e in report["entries"]:
        for r in range(e["reps"]):
            order.append((e["entry_id"], r))
    rep_of = {i + 1: er for i, er in enumerate(order)}
    per_entry_calls = defaultdict(list)
    for c in calls:
        if "tool" in c and c.get("rep"):
            per_entry_calls[rep_of.get(c["rep"], ("?", 0))[0]].append(c)

    buckets = Counter()
    rows = []
    for e in report["entries"]:
        eid = e["entry_id"]
        cs = per_entry_calls.get(eid, [])
        codes = Counter()
        confirmed = 0
        for c in cs:
            if c["is_error"]:
                try:
                    codes[json.loads(c["answer"])["error"]["code"]] += 1
                except Exception:
                    codes["?"] += 1
            if c["tool"] == "gui_action" and c["args"].get("confirm_dangerous") \
                    and not c["is_error"]:
                confirmed += 1
        details = []
        gate_refused = False
        for r in range(e["reps"]):
            vp = run / "entries" / eid / f"rep{r}" / "verdict.json"
            if not vp.exists():
                continue
            v = json.loads(vp.read_text())
            if v["status"] != "pass":
                d = v["event_channel"].get("detail", "")
                if v.get("notes") == "sut_execution_error" and \
                        "DANGEROUS_ACTION_NEEDS_CONFIRMATION" in d:
                    gate_refused = True
                raw = v.get("raw_channel") or {}
                extra = f" | raw tap: {raw.get('status')} {raw.get('detail','')}" if raw else ""
                notes = v.get("notes", "")
                notes = "" if notes == "sut_execution_error" else notes
                details.append(f"rep{r} {v['status']}: {d}{extra}"
                               + (f" | notes: {notes[:300]}" if notes else ""))
        final = e["final"]
        bucket = ("pass" if final == "pass" else
                  "refused_by_gate" if gate_refused else "fail")
        buckets[bucket] += 1
        rows.append((eid, final, e["statuses"], bucket, dict(codes), confirmed,
                     Counter(c["tool"] for c in cs), details))
    for nm in report.get("not_measurable", []):
        reason = nm["reason"]
        bucket = ("not_measurable" if reason.startswith("probe lacks capabilities")
                  else "not_expressible")
        buckets[bucket] += 1
        rows.append((nm["entry_id"], "not_measurable", [], bucket, {}, 0, Counter(),
                     [reason]))

    total = sum(buckets.values())
    print(f"== autoharness Layer A via mcp-computer-use: {total} probes, "
          f"reps/probe {report['entries'][0]['reps'] if report['entries'] else '-'}, "
          f"raw tap {'on' if report.get('raw_tap') else 'off'}")
    print("   " + "  ".join(f"{k}: {buckets.get(k, 0)}" for k in
                           ("pass", "fail", "refused_by_gate", "not_expressible",
                            "not_measurable")))
    print(f"   harness totals: {report['totals']}")
    if stats:
        print(f"   tool calls: {stats.get('tool_calls')} (total "
              f"{stats.get('tool_calls_total')}); error codes: "
              f"{stats.get('error_codes')}; gate confirmations (retries with "
              f"confirm_dangerous=true): {len(stats.get('gate_confirmations', []))}; "
              f"screenshots: {stats.get('screenshots')}")
    print()
    print(f"{'probe':32s} {'final':14s} {'bucket':16s} confirmed  calls / error codes")
    for eid, final, statuses, bucket, codes, confirmed, tools, details in rows:
        print(f"{eid:32s} {final:14s} {bucket:16s} {confirmed:9d}  "
              f"{dict(tools) if tools else ''} {codes if codes else ''}")
        if bucket != "pass":
            for d in details:
                print(f"      {d[:700]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
