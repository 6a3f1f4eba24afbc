/**
 * The goal of each `make bench` / `make bench-reliability` figure that has one, and where it
 * was set: "issue N" for a goal an issue states, "design numbers" for the numbers the design
 * asks every build to beat, "BENCHMARKS <section>" for a bound first written in
 * docs/BENCHMARKS.md. A figure with no goal anywhere is absent. scripts/bench-table.ts turns
 * a bench log into the table docs/BENCHMARKS.md opens with and judges each row from here.
 *
 * A goal is one comparison, read by `parseGoal` in scripts/bench-table.ts:
 *
 *   goal     = op " " operand
 *   op       = "≤" | "≥" | "=" | "<" | ">"
 *   operand  = number [" " unit]                      the figure against a fixed number
 *            | [number " × "] figure [" + " number]   the figure against another figure
 *                                                     printed in the same run
 *   number   = digits with "," between thousands and an optional "." fraction
 *   unit     = the unit the figure prints (`ms`, `MiB`, `%`, `µs` for `us`, …); a goal
 *              without one compares the bare number, whatever the figure's unit
 *
 * e.g. "≤ 185 MiB", "= 100 %", "≥ 2,000 turns/s", "≤ 1.3 × ipc.notify.bun_p99_us",
 * "≥ recall.r10_bm25 + 5". A goal whose unit differs from the printed one, or whose other
 * figure is missing from the log, is judged "—", never guessed.
 */
export interface Goal {
  /** The comparison, in the grammar above. */
  goal: string;
  /** Where it was set. */
  source: string;
}

export const GOALS: Record<string, Goal> = {
  // Start and size
  "binary.mb": { goal: "≤ 185 MiB", source: "issue 30" },
  "start.ready_ms": { goal: "≤ 1,000 ms", source: "design numbers" },
  "plugins.ready_ms": { goal: "≤ 1,000 ms", source: "design numbers" },
  "turn.first_ms": { goal: "≤ 50 ms", source: "issue 30" },
  "dist.seconds": { goal: "≤ 900 s", source: "issue 17" },
  // make dist-check (scripts/dist-check.sh), not make bench: apt's additional disk space for a
  // headless homed-server in a Debian 12 minbase tree, and lintian errors over every .deb.
  "dist.install_mb_server": { goal: "≤ 320 MB", source: "issue 32" },
  "dist.lintian_errors": { goal: "= 0", source: "issue 32" },

  // Plugins as processes
  "ipc.bulk.ratio": { goal: "≥ 10", source: "design numbers; issue 3" },
  "ipc.bulk.ratio_1mib": { goal: "≥ 10", source: "issue 3" },
  "ipc.notify.ratio": { goal: "≥ 10", source: "design numbers; issue 3" },
  // Issue 10 asked for ≤ 50 µs; issue 31 judges it against Bun's own wake-up measured beside it.
  "ipc.notify.p99_us": { goal: "≤ 1.3 × ipc.notify.bun_p99_us", source: "issue 31" },

  // The turn
  "turn.overhead_ms": { goal: "≤ 10 ms", source: "design numbers; issues 4, 29" },
  "load.rss_peak_mb": { goal: "≤ 200 MiB", source: "issue 30" },
  "load.rss_after_mb": { goal: "≤ load.rss_idle_mb + 30", source: "issue 30" },
  // The web UI's path for a streamed reply
  "web.pipe_msgs_per_delta": { goal: "= 1 msgs", source: "issue 43" },
  "web.ui_delta_ms_1k": { goal: "≤ 2 ms", source: "issue 43" },
  "web.ui_delta_ms_20k": { goal: "≤ 2 ms", source: "issue 43" },

  // Memory
  "recall.cold_query_ms_100k": { goal: "≤ 20 ms", source: "design numbers; issues 11, 29" },
  "recall.index_events_s": { goal: "≥ 2,000 events/s", source: "issue 11" },
  "recall.lme_dev_r5": { goal: "≥ 88 %", source: "issue 11" },
  "recall.lme_dev_r5_all": { goal: "≥ 85 %", source: "issue 11" },
  // Issue 11: "the default never below plain BM25 on any set you have".
  "recall.locomo_dev_r10": { goal: "≥ recall.locomo_dev_r10_bm25", source: "issue 11" },
  "recall.chat_r10_en": { goal: "≥ recall.chat_r10_en_bm25", source: "issue 11" },
  "recall.chat_r10_zh": { goal: "≥ recall.chat_r10_zh_bm25", source: "issue 11" },
  // Issue 6: the hybrid's R@10 beats BM25-only by at least 5 points.
  "recall.r10": { goal: "≥ recall.r10_bm25 + 5", source: "issue 6" },
  "recall.live_equals_stdio": { goal: "= 100 %", source: "issue 29" },
  "import.turns_s": { goal: "≥ 2,000 turns/s", source: "issue 29" },
  "import.recall_ok": { goal: "= 1", source: "issue 29" },
  "import.again_added": { goal: "= 0", source: "issue 29" },

  // Backups taken while the daemon works (issue 45 sets no speed)
  "backup.lost_turns": { goal: "= 0 turns", source: "issue 45" },
  "backup.recall_same": { goal: "= 1", source: "issue 45" },
  // Issue 41 set these on a person set kept from the project; here they judge ours, which guides.
  "memory.person_hit_en": { goal: "≥ 80 %", source: "issue 41" },
  "memory.person_hit_zh": { goal: "≥ 80 %", source: "issue 41" },
  "memory.person_update_newest_pct": { goal: "≥ 95 %", source: "issue 41" },
  "memory.person_update_stale_alone_pct": { goal: "= 0 %", source: "issue 41" },
  "memory.person_unrelated_note_pct": { goal: "≤ 10 %", source: "issue 41" },
  "memory.person_remembered_avg": { goal: "≤ 4 turns", source: "issue 41" },
  "memory.person_search_top5_pct": { goal: "≥ 85 %", source: "issue 41" },
  "memory.person_failed_turns": { goal: "= 0 turns", source: "issue 41" },
  // Issue 15: L3 and scenes stay in recall only where they add over their base.
  "l3.recall_r10": { goal: "≥ l3.recall_r10_base", source: "issue 15" },
  "scenes.recall_r10": { goal: "≥ scenes.recall_r10_base", source: "issue 15" },
  "blocks.property_violations": { goal: "= 0", source: "issue 15" },

  // Ten years on one machine (`make bench-scale`, about a million events)
  "scale.start_ms_1m": { goal: "≤ 1,500 ms", source: "issue 44" },
  "scale.first_turn_ms_1m": { goal: "≤ 100 ms", source: "issue 44" },
  "scale.recall_ms_1m": { goal: "≤ 50 ms", source: "issue 44" },
  "scale.search_ms_1m": { goal: "≤ 100 ms", source: "issue 44" },
  "scale.conversations_list_ms_1m": { goal: "≤ 100 ms", source: "issue 44" },
  "scale.rss_mb_1m": { goal: "≤ 300 MiB", source: "issue 44" },
  "scale.import_turns_s": { goal: "≥ 10,000 turns/s", source: "issue 44" },

  // Cost per turn
  "cost.request_bytes_plain": { goal: "≤ 6,000 B", source: "issue 44; 12,000 in issue 30" },
  "cost.tools_offered_plain": { goal: "≤ 12", source: "issue 30" },
  "cost.prefix_reuse_pct": { goal: "≥ 85 %", source: "issue 30" },
  "cost.cached_tokens_reported": { goal: "= cost.cached_tokens_provider", source: "issue 30" },
  "cost.tools_reach": { goal: "= cost.tools_needed", source: "issue 44" },
  "cost.prefix_kept_pct": { goal: "≥ 99 %", source: "issue 44" },
  "cost.uncached_bytes": { goal: "≤ 20,000 B", source: "issue 44" },

  // Tools (issue 13 asked for ≥ 25 first)
  "tools.count": { goal: "≥ 60", source: "issue 16" },

  // Agent Skills: every prepared skill found, every malformed one listed; skills riding along
  // keep the cache prefix issue 30 asked for.
  "skills.count": { goal: "= 20", source: "issue 33" },
  "skills.invalid": { goal: "= 2", source: "issue 33" },
  "skills.prefix_reuse_pct": { goal: "≥ 85 %", source: "issue 30 (with issue 33's skills)" },

  // Reliability: leak.* in `make bench`, the rest in `make bench-reliability`
  "leak.fds_after_50_restarts": { goal: "= 0", source: "issue 9" },
  "reliability.kill9_cycles": { goal: "≥ 100", source: "issue 9" },
  "reliability.acked_lost": { goal: "= 0", source: "issue 9" },
  "reliability.integrity_failures": { goal: "= 0", source: "issue 9" },
  "fuzz.rpc_frames": { goal: "≥ 10,000", source: "issues 3, 9" },
  "fuzz.http_requests": { goal: "≥ 10,000", source: "issue 9" },
  "fuzz.crashes": { goal: "= 0", source: "issue 9" },
  "soak.rss_growth_mb": { goal: "≤ 50 MiB", source: "issue 9" },

  // Safe with what it reads (`make bench-reliability`)
  "security.injection_chains": { goal: "≥ 100", source: "issues 28, 42" },
  "security.injection_chains_broken": { goal: "= 0", source: "BENCHMARKS 2026-12-07 (evening)" },
  "security.unasked_side_effects": { goal: "= 0", source: "issue 28" },
  // The four effects (write, exec, secret, send) with nothing untrusted in view all run unasked.
  "security.injection_controls_unasked": { goal: "≥ 4", source: "issue 42" },
  "security.exfil_while_marked": { goal: "= 0", source: "issue 42" },
  "security.exfil_ways": { goal: "≥ 20", source: "issue 42" },
  "security.unmarked_tools": { goal: "= 0", source: "issue 42" },
  "security.plugin_secret_reads": { goal: "= 0", source: "issue 42" },
  "security.files_race_calls": { goal: "≥ 5,000", source: "issue 28" },
  "security.files_race_escapes": { goal: "= 0", source: "issue 28" },
  "security.exfil_requests": { goal: "= 0", source: "issue 28" },
  "security.guesses_before_429.login": { goal: "≤ 5", source: "issue 28" },
  "security.guesses_before_429.v1": { goal: "≤ 5", source: "issue 28" },
  "security.guesses_before_429.a2a": { goal: "≤ 5", source: "issue 28" },
  "security.guesses_before_429.qq": { goal: "≤ 5", source: "issue 28" },
  "security.slow_conns_healthz_ms": { goal: "≤ 1,000 ms", source: "issue 28" },
  "security.slow_conns_healthz_ms_noauth": { goal: "≤ 1,000 ms", source: "BENCHMARKS 2026-12-04 (evening)" },
};
