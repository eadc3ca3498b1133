"""Agreement of calltape's BFCL checker with BFCL's own `ast_checker`.

Run through run.sh, which installs bfcl-eval and builds calltape. Steps:
1. import every single-turn category shipped in the installed bfcl_eval
   package (data + possible_answer) with `calltape import bfcl`;
2. `calltape run` the bundled simulated models over them;
3. collect two sets of answers from events.jsonl:
   - final: the calls each model made after calltape's repair pipeline (the
     answer calltape itself judged during the run; its verdict is in the
     scenario_finished event);
   - raw: the calls of the first turn exactly as the model sent them (names as
     written, arguments as strict JSON; answers with unparseable arguments are
     left out), judged with `calltape bfcl-judge`;
4. judge every answer with BFCL: `ast_checker` for AST categories, the
   relevance rule of BFCL's runner for (ir)relevance, and "no call" as the
   runner's decoder failure;
5. compare verdicts (valid or not) and error types, per category; list every
   disagreement; time both checkers on the same AST answers.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CATEGORIES = [
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
    "irrelevance", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "live_irrelevance", "live_relevance",
]


def bfcl_data_dir():
    import bfcl_eval

    return Path(bfcl_eval.__file__).parent / "data"


def judge_timing(calltape, suite, rounds, answers_path):
    """`calltape bfcl-judge --time`'s figures for the answers in `answers_path`
    (best_round_us, mean_us, rounds), as the timing scripts compare them."""
    out = subprocess.run([calltape, "bfcl-judge", "--suite", str(suite), "--time", str(rounds), str(answers_path)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bfcl-judge --time failed: {out.stderr[:3000]}")
    return json.loads(out.stdout)


def fc_model_name():
    """A function-calling model whose config maps dots to underscores, written as BFCL's checker expects."""
    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

    preferred = [n for n in MODEL_CONFIG_MAPPING if n.startswith("gpt-4o") and n.endswith("-FC")]
    for name in preferred + list(MODEL_CONFIG_MAPPING):
        cfg = MODEL_CONFIG_MAPPING[name]
        if getattr(cfg, "underscore_to_dot", False) and getattr(cfg, "is_fc_model", True):
            return name.replace("/", "_")
    raise SystemExit("no model with underscore_to_dot in bfcl_eval's MODEL_CONFIG_MAPPING")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def data_file(data_dir, category):
    """The newest `BFCL_v<N>_<category>.json` (exactly that category: not live_ or parallel_ ones)."""
    import re

    pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(category)}\.json")
    found = [(int(m.group(1)), p) for p in data_dir.iterdir() if (m := pattern.fullmatch(p.name))]
    return max(found)[1] if found else None


def language_of(category):
    from bfcl_eval.constants.enums import Language

    if category == "simple_java":
        return Language.JAVA
    if category == "simple_javascript":
        return Language.JAVASCRIPT
    return Language.PYTHON


def bfcl_verdict(category, entry, answer, calls, model_name):
    """BFCL's verdict on an answer: (valid, error_type)."""
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    if "irrelevance" in category:
        return (len(calls) == 0, None if not calls else "irrelevance_error:decoder_success")
    if "relevance" in category:
        return (len(calls) > 0, None if calls else "relevance_error:decoder_failed")
    if not calls:
        return (False, "ast_decoder:decoder_failed")
    try:
        r = ast_checker(entry["function"], calls, answer["ground_truth"], language_of(category), category, model_name)
    except Exception as e:  # BFCL's checker raises on some inputs
        return (False, f"checker_error:exception ({type(e).__name__}: {e})")
    return (bool(r["valid"]), None if r["valid"] else r.get("error_type"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calltape", required=True)
    ap.add_argument("--work", default="target/bfcl-agreement")
    ap.add_argument("--sample", type=int, default=0, help="entries per category (0: all)")
    ap.add_argument("--rounds", type=int, default=20, help="timing rounds")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--models", default="sim-*", help="comma-separated models or globs (default: the simulated models, sim-*)")
    args = ap.parse_args()

    work = Path(args.work).resolve()
    suite = work / "suites" / "bfcl-all"
    if suite.exists():
        for p in suite.iterdir():
            p.unlink()
    suite.mkdir(parents=True, exist_ok=True)
    data_dir = bfcl_data_dir()
    import bfcl_eval

    version = getattr(bfcl_eval, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("bfcl-eval")
    print(f"bfcl-eval {version}; data from {data_dir}")

    entries, answers, categories = {}, {}, []
    for category in CATEGORIES:
        path = data_file(data_dir, category)
        if path is None:
            print(f"  {category}: not shipped, skipped")
            continue
        cmd = [args.calltape, "import", "bfcl", str(path), "--out", str(suite)]
        answer_path = data_dir / "possible_answer" / path.name
        if answer_path.exists():
            cmd += ["--answers", str(answer_path)]
        if args.sample:
            cmd += ["--sample", str(args.sample), "--seed", str(args.seed)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"import of {path} failed: {out.stderr}")
        print("  " + out.stdout.strip())
        categories.append(category)
        for e in read_lines(path):
            entries[e["id"]] = (category, e)
        if answer_path.exists():
            for a in read_lines(answer_path):
                answers[a["id"]] = a

    run_dir = work / "run"
    # Live: the simulated models answer in-process, so no recording is needed
    # (the default configuration replays, and has none of these suites).
    cmd = [args.calltape, "run", "--suite", str(suite), "--out", str(run_dir), "--seed", str(args.seed), "--mode", "live"]
    for m in filter(None, args.models.split(",")):
        cmd += ["--model", m]
    started = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"calltape run failed: {out.stderr[-2000:]}")
    print(f"calltape run: {time.time() - started:.1f} s")

    final, raw, unparseable, errored = {}, {}, 0, 0
    verdicts = {}
    for ev in read_lines(run_dir / "latest" / "events.jsonl"):
        kind = ev.get("event")
        if kind not in ("tool_call", "scenario_finished"):
            continue
        key = (ev["model"], ev["scenario"], ev["trial"])
        if kind == "scenario_finished":
            if ev.get("error"):
                errored += 1  # the model never answered: nothing to judge
                continue
            verdicts[key] = (ev["passed"], ev["reason"])
            continue
        if "final_arguments" in ev:
            final.setdefault(key, []).append({ev["tool"]: ev["final_arguments"]})
        if ev["step"] == 1:
            slot = raw.setdefault(key, [])
            if slot is None:
                continue
            try:
                parsed = json.loads(ev["arguments"]) if ev["arguments"].strip() else {}
            except json.JSONDecodeError:
                parsed = None
            if not isinstance(parsed, dict):
                raw[key] = None
                continue
            slot.append({ev["raw_name"]: parsed})
    # A unit that errored part-way has no verdict: none of its calls are judged.
    final = {k: v for k, v in final.items() if k in verdicts}
    raw = {k: v for k, v in raw.items() if k in verdicts}
    for key in verdicts:
        final.setdefault(key, [])
        raw.setdefault(key, [])
    if errored:
        print(f"{errored} unit(s) errored (the model never answered) and are left out")
    if not verdicts:
        raise SystemExit(f"no unit reached a verdict: see {run_dir / 'latest' / 'report.md'}")
    unparseable = sum(1 for v in raw.values() if v is None)
    raw = {k: v for k, v in raw.items() if v is not None}

    # calltape's verdicts on the raw answers, and the timing input.
    raw_path = work / "raw_answers.jsonl"
    with open(raw_path, "w", encoding="utf-8") as f:
        for (model, sid, trial), calls in sorted(raw.items()):
            f.write(json.dumps({"id": sid, "model": model, "trial": trial, "calls": calls}) + "\n")
    out = subprocess.run([args.calltape, "bfcl-judge", "--suite", str(suite), str(raw_path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bfcl-judge failed: {out.stderr}")
    raw_verdicts = {}
    for line in out.stdout.splitlines():
        v = json.loads(line)
        raw_verdicts[(v["model"], v["id"], v["trial"])] = (v["valid"], v["error_type"])

    model_name = fc_model_name()
    rows = []
    for set_name, answers_set in (("final", final), ("raw", raw)):
        for key, calls in sorted(answers_set.items()):
            model, sid, trial = key
            category, entry = entries[sid]
            bv, btype = bfcl_verdict(category, entry, answers.get(sid), calls, model_name)
            if set_name == "final":
                passed, reason = verdicts[key]
                cv, ctype = passed, (None if passed else reason.split(": ", 1)[0])
            else:
                cv, ctype = raw_verdicts[key]
            rows.append({
                "set": set_name, "category": category, "id": sid, "model": model, "trial": trial,
                "calls": calls, "bfcl_valid": bv, "bfcl_error_type": btype,
                "calltape_valid": cv, "calltape_error_type": ctype,
            })

    per = collections.defaultdict(lambda: collections.Counter())
    disagreements = []
    for r in rows:
        c = per[(r["set"], r["category"])]
        c["n"] += 1
        c["bfcl_valid"] += r["bfcl_valid"]
        same = r["bfcl_valid"] == r["calltape_valid"]
        c["agree"] += same
        same_type = same and (r["bfcl_valid"] or r["bfcl_error_type"] == r["calltape_error_type"])
        c["agree_type"] += same_type
        if not same_type:
            disagreements.append(r)

    print()
    print("| answers | category | answers judged | BFCL valid | verdicts agree | error types agree |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    totals = collections.Counter()
    for (set_name, category), c in sorted(per.items(), key=lambda kv: (kv[0][0], CATEGORIES.index(kv[0][1]))):
        print(f"| {set_name} | {category} | {c['n']} | {c['bfcl_valid']} | {c['agree']} ({100 * c['agree'] / c['n']:.2f}%) "
              f"| {c['agree_type']} ({100 * c['agree_type'] / c['n']:.2f}%) |")
        totals.update(c)
    print(f"| all | all | {totals['n']} | {totals['bfcl_valid']} | {totals['agree']} ({100 * totals['agree'] / totals['n']:.3f}%) "
          f"| {totals['agree_type']} ({100 * totals['agree_type'] / totals['n']:.3f}%) |")
    print(f"\nraw answers left out (arguments not strict JSON): {unparseable}")
    kinds = collections.Counter(r["bfcl_error_type"] or "valid" for r in rows)
    print("BFCL verdicts by error type: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"\n{len(disagreements)} disagreement(s)")
    for r in disagreements:
        print(json.dumps({k: r[k] for k in ("set", "id", "model", "bfcl_valid", "bfcl_error_type", "calltape_valid", "calltape_error_type", "calls")})[:1500])

    # Timing: the same AST answers through both checkers.
    timed = [r for r in rows if r["calls"] and answers.get(r["id"]) and "relevance" not in r["category"]]
    timing_path = work / "timed_answers.jsonl"
    with open(timing_path, "w", encoding="utf-8") as f:
        for r in timed:
            f.write(json.dumps({"id": r["id"], "calls": r["calls"]}) + "\n")
    prepared = [(entries[r["id"]][1]["function"], r["calls"], answers[r["id"]]["ground_truth"], language_of(r["category"]), r["category"]) for r in timed]
    if not prepared:
        print("\nno AST answers with calls to time")
        timing = None
    else:
        timing = time_checkers(args, suite, work, prepared, model_name)

    summary = {
        "bfcl_eval": version, "model_name": model_name, "per_category": {f"{s}/{c}": dict(v) for (s, c), v in per.items()},
        "totals": dict(totals), "unparseable_raw": unparseable, "errored_units": errored, "disagreements": disagreements,
        "timing": timing,
    }
    (work / "agreement.json").write_text(json.dumps(summary, indent=1))
    print(f"\nwritten {work / 'agreement.json'}")
    agree = totals["agree"] / totals["n"] if totals["n"] else 0.0
    sys.exit(0 if agree >= 0.995 else 1)


def time_checkers(args, suite, work, prepared, model_name):
    """Times BFCL's ast_checker and `calltape bfcl-judge --time` on the same answers."""
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    timing_path = work / "timed_answers.jsonl"
    for fn, calls, gt, lang, cat in prepared[: min(len(prepared), 2000)]:  # warm-up
        try:
            ast_checker(fn, calls, gt, lang, cat, model_name)
        except Exception:
            pass
    best, total = float("inf"), 0.0
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for fn, calls, gt, lang, cat in prepared:
            try:
                ast_checker(fn, calls, gt, lang, cat, model_name)
            except Exception:
                pass
        dt = time.perf_counter() - t0
        best, total = min(best, dt), total + dt
    py_mean = total / args.rounds * 1e6 / len(prepared)
    py_best = best * 1e6 / len(prepared)
    out = subprocess.run([args.calltape, "bfcl-judge", "--suite", str(suite), str(timing_path), "--time", str(args.rounds)],
                         capture_output=True, text=True, check=True)
    rs = json.loads(out.stdout)
    print(f"\ntiming over {len(prepared)} AST answers, {args.rounds} rounds (per answer):")
    print(f"  BFCL ast_checker (Python {sys.version.split()[0]}): mean {py_mean:.2f} µs, best round {py_best:.2f} µs")
    print(f"  calltape checker ({Path(args.calltape).parent.name} build): mean {rs['mean_us']:.2f} µs, best round {rs['best_round_us']:.2f} µs")
    print(f"  ratio (BFCL / calltape): mean {py_mean / rs['mean_us']:.1f}x, best {py_best / rs['best_round_us']:.1f}x")

    return {"answers": len(prepared), "rounds": args.rounds, "python_mean_us": py_mean, "python_best_us": py_best,
            "calltape_mean_us": rs["mean_us"], "calltape_best_us": rs["best_round_us"]}


if __name__ == "__main__":
    main()
