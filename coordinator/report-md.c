/* report.md: GitHub-flavoured Markdown, a section per architecture. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/report.h"

/* Writes a ratio with its interval, or why there is none. */
static void
md_ratio(FILE *f, const struct rep_cmp *c)
{
	if (c->verdict == VERDICT_INVALID || !isfinite(c->ratio)) {
		fputs("—", f);
		return;
	}
	fprintf(f, "%.3f [%.3f, %.3f]", c->ratio, c->lo, c->hi);
}

/* Writes a verdict in words with the size of the effect. */
static void
md_verdict(FILE *f, const struct rep_cmp *c)
{
	double	pct;

	switch (c->verdict) {
	case VERDICT_BETTER:
	case VERDICT_WORSE:
		pct = (c->ratio - 1) * 100;
		fprintf(f, "**%s** (%+.1f%%)", stats_verdict_name(c->verdict),
		    pct);
		break;
	default:
		fputs(stats_verdict_name(c->verdict), f);
	}
}

/* Returns 1 when hosts i and j (indices into a->hosts) share a section. */
static int
md_same_group(const struct analysis *a, size_t i, size_t j)
{
	const struct ds_host	*x = &a->ds->hosts[a->hosts[i].host];
	const struct ds_host	*y = &a->ds->hosts[a->hosts[j].host];

	return (strcmp(x->facts.arch, y->facts.arch) == 0 &&
	    strcmp(x->facts.cpu_model, y->facts.cpu_model) == 0);
}

/* Escapes a table cell: pipes and newlines would break the table. */
static void
md_cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void
md_host_table(FILE *f, const struct analysis *a, size_t from, size_t to)
{
	const struct ds_host	*h;
	size_t			 i;

	fputs("| host | os | cores | memory | kernel | agent | samples | "
	    "failed | retries | load (median / max) | status |\n", f);
	fputs("|---|---|---:|---:|---|---|---:|---:|---:|---|---|\n", f);
	for (i = from; i < to; i++) {
		h = &a->ds->hosts[a->hosts[i].host];
		fprintf(f, "| %s | %s | %u | %.1f GiB | %s | %s | %zu | %zu | "
		    "%zu | %.2f / %.2f | ", h->name, h->facts.os,
		    h->facts.cores, (double)h->facts.mem_kb / (1024 * 1024),
		    h->facts.kernel, h->agent_version, a->hosts[i].samples,
		    a->hosts[i].failed, a->hosts[i].retries,
		    a->hosts[i].load_med, a->hosts[i].load_max);
		if (h->failed || !h->ended) {
			fputs("**failed**: ", f);
			md_cell(f, h->ended ? h->error :
			    "the record ends before this host finished");
		} else
			fputs("ok", f);
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

/* The benchmark tables of one host. */
static void
md_host_benches(FILE *f, const struct analysis *a, size_t hostidx)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	const struct rep_cmp	*c;
	char			 med[64], lo[64], hi[64];
	size_t			 b, i, j;

	for (b = 0; b < ds->nbenches; b++) {
		fprintf(f, "#### `%s` on %s\n\n", ds->benches[b].name,
		    ds->hosts[hostidx].name);
		fputs("| metric | variant | n | median | min … max | IQR % | "
		    "ratio [95% CI] | p | verdict |\n", f);
		fputs("|---|---|---:|---:|---|---:|---|---:|---|\n", f);
		for (i = 0; i < a->nresults; i++) {
			res = &a->results[i];
			if (res->host != hostidx || res->bench != b)
				continue;
			const char *mn = ds->benches[b].metrics[res->metric];
			report_fmt_value(mn, res->sum.n ? res->sum.median : NAN,
			    med, sizeof med);
			report_fmt_value(mn, res->sum.n ? res->sum.min : NAN,
			    lo, sizeof lo);
			report_fmt_value(mn, res->sum.n ? res->sum.max : NAN,
			    hi, sizeof hi);
			fprintf(f, "| %s%s%s | %s%s | %zu", res->metric == 0 ?
			    "**" : "", mn, res->metric == 0 ? "**" : "",
			    ds->variants[res->variant],
			    res->variant == ds->ref ? " (ref)" : "",
			    res->sum.n);
			if (res->failed > 0)
				fprintf(f, " (+%zu failed)", res->failed);
			fprintf(f, " | %s | %s … %s | ", med, lo, hi);
			if (res->sum.n)
				fprintf(f, "%.1f", res->sum.iqr_pct);
			else
				fputs("-", f);
			fputs(" | ", f);
			c = NULL;
			for (j = 0; j < a->ncmps; j++) {
				if (a->cmps[j].host == hostidx &&
				    a->cmps[j].bench == b &&
				    a->cmps[j].metric == res->metric &&
				    a->cmps[j].variant == res->variant)
					c = &a->cmps[j];
			}
			if (c == NULL) {
				fputs("reference | | |\n", f);
				continue;
			}
			md_ratio(f, c);
			fputs(" | ", f);
			if (isfinite(c->p))
				fprintf(f, "%.2g", c->p);
			fputs(" | ", f);
			md_verdict(f, c);
			fputs(" |\n", f);
		}
		fputc('\n', f);
		for (j = 0; j < a->ncmps; j++) {
			c = &a->cmps[j];
			if (c->host == hostidx && c->bench == b &&
			    c->metric == 0 && c->verdict == VERDICT_INVALID) {
				fprintf(f, "> **No ratio for %s vs %s:** ",
				    ds->variants[c->variant],
				    ds->variants[ds->ref]);
				md_cell(f, c->reason);
				fputs("\n\n", f);
			}
		}
	}
}

/* Lists the failed runs of one host with their status and stderr tail. */
static void
md_failures(FILE *f, const struct analysis *a, size_t hostidx)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	char			 tail[160];
	size_t			 i, shown = 0, n = 0, len;

	for (i = 0; i < ds->nsamples; i++) {
		s = &ds->samples[i];
		if (s->host != hostidx || s->status == 0)
			continue;
		if (n++ == 0)
			fprintf(f, "Failed runs on %s:\n\n| seq | bench | "
			    "variant | round | attempt | status | detail |\n"
			    "|---:|---|---|---:|---:|---|---|\n",
			    ds->hosts[hostidx].name);
		if (shown >= 20)
			continue;
		shown++;
		/* The end of the tail says most: show its last line. */
		len = strlen(s->err);
		while (len > 0 && (s->err[len - 1] == '\n'))
			len--;
		{
			size_t	st = len;

			while (st > 0 && s->err[st - 1] != '\n')
				st--;
			snprintf(tail, sizeof tail, "%.*s", (int)(len - st),
			    s->err + st);
		}
		fprintf(f, "| %u | %s | %s | %u%s | %u | %s", s->seq,
		    ds->benches[s->bench].name, ds->variants[s->variant],
		    s->round, s->warmup ? " (warmup)" : "", s->attempt,
		    proto_status_name(s->status));
		if (s->status == 3)
			fprintf(f, " %d", s->signal);
		else if (s->status == 1)
			fprintf(f, " (exit %d)", s->exit_code);
		fputs(" | ", f);
		md_cell(f, tail);
		fputs(" |\n", f);
	}
	if (n > shown)
		fprintf(f, "| … | %zu more in samples.csv | | | | | |\n",
		    n - shown);
	if (n > 0)
		fputc('\n', f);
}

int
report_md(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct ds_host	*h;
	const struct rep_cmp	*c;
	size_t			 i, j, g, b, v;

	fprintf(f, "# orch report: %s\n\n", ds->suite_name);
	fprintf(f, "Run `%s` of suite `%s` (%s): %zu variants over %u "
	    "interleaved rounds (%u warmup run%s each first), reference `%s`, "
	    "min_effect %.3g.\n\n", ds->run_id, ds->suite_name,
	    ds->suite_path, ds->nvariants, ds->rounds, ds->warmup,
	    ds->warmup == 1 ? "" : "s", ds->variants[ds->ref],
	    ds->min_effect);
	if (ds->ended[0] == '\0' || ds->truncated)
		fputs("> **Incomplete record:** the run did not finish; the "
		    "numbers below cover what was recorded.\n\n", f);
	if (a->nfailed_hosts > 0)
		fprintf(f, "> **%zu host%s failed**; see its section.\n\n",
		    a->nfailed_hosts, a->nfailed_hosts == 1 ? "" : "s");

	fputs("## Verdicts\n\n", f);
	fputs("Primary metric of each benchmark; ratio = variant / reference "
	    "(median of per-round paired ratios) with its 95% bootstrap "
	    "interval.\n\n", f);
	fputs("| host | arch | bench | metric | variant | ratio [95% CI] | "
	    "verdict |\n|---|---|---|---|---|---|---|\n", f);
	for (i = 0; i < a->nhosts; i++) {
		for (j = 0; j < a->ncmps; j++) {
			c = &a->cmps[j];
			if (c->host != a->hosts[i].host || c->metric != 0)
				continue;
			h = &ds->hosts[c->host];
			fprintf(f, "| %s | %s | %s | %s | %s | ", h->name,
			    h->facts.arch, ds->benches[c->bench].name,
			    ds->benches[c->bench].metrics[0],
			    ds->variants[c->variant]);
			md_ratio(f, c);
			fputs(" | ", f);
			md_verdict(f, c);
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);

	for (i = 0; i < a->nhosts; i = g) {
		for (g = i + 1; g < a->nhosts && md_same_group(a, i, g); g++)
			;
		h = &ds->hosts[a->hosts[i].host];
		fprintf(f, "## %s · %s\n\n", h->facts.arch[0] ? h->facts.arch :
		    "unknown arch", h->facts.cpu_model[0] ?
		    h->facts.cpu_model : "unknown CPU");
		md_host_table(f, a, i, g);
		for (j = i; j < g; j++) {
			md_host_benches(f, a, a->hosts[j].host);
			md_failures(f, a, a->hosts[j].host);
		}
	}

	fputs("## Run\n\n", f);
	fprintf(f, "- orch %s; started %s, ended %s\n", ds->orch_version,
	    ds->started, ds->ended[0] ? ds->ended : "(not recorded)");
	fprintf(f, "- command: `%s`\n", ds->cmdline);
	fprintf(f, "- seed: %llu (the plan's order and every bootstrap "
	    "interval follow from it)\n", (unsigned long long)ds->seed);
	fputs("- benchmarks: ", f);
	for (b = 0; b < ds->nbenches; b++) {
		fprintf(f, "%s`%s` (", b ? ", " : "", ds->benches[b].name);
		for (v = 0; v < ds->benches[b].nmetrics; v++)
			fprintf(f, "%s%s %s", v ? ", " : "",
			    ds->benches[b].metrics[v],
			    ds->benches[b].higher[v] ? "higher is better" :
			    "lower is better");
		fputs(")", f);
	}
	fputs("\n", f);
	if (ds->nfiles > 0) {
		fputs("\nFiles run, per host (SHA-256):\n\n| host | variant | "
		    "role | path | sha256 |\n|---|---|---|---|---|\n", f);
		for (i = 0; i < ds->nfiles; i++)
			fprintf(f, "| %s | %s | %s | %s | `%.16s…` |\n",
			    ds->hosts[ds->files[i].host].name,
			    ds->files[i].variant, ds->files[i].role,
			    ds->files[i].path, ds->files[i].sha);
	}
	fputs("\n<details><summary>Suite file as run</summary>\n\n```ini\n", f);
	fputs(ds->suite_text, f);
	if (ds->suite_text[0] != '\0' &&
	    ds->suite_text[strlen(ds->suite_text) - 1] != '\n')
		fputc('\n', f);
	fputs("```\n\n</details>\n", f);
	return (ferror(f) ? -1 : 0);
}
