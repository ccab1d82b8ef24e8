/*
 * The answer alone: per variant the headline, per architecture its
 * geometric mean, and one line per primary comparison (host, benchmark,
 * ratio, interval, verdict). Printed on the terminal at the end of a run
 * and of `orch report`, and written as answer.md, Markdown to paste into
 * a pull request; both from the analysis, like every other report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/analysis/stats.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-claims.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/report/report-quantity.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"
#include "coordinator/store/dataset.h"
#include "proto/xmalloc.h"

/*
 * Writes the primary intervals' level, "95%" for a family of one, else
 * e.g. "99.75% (5% family-wise over 20 tests)": the level the answer's
 * intervals are at (docs/statistics.md).
 */
static void
ans_level(const struct analysis *a, char *buf, size_t len)
{
	double	lvl = 100 * (1 - a->family_alpha);

	if (a->family_size <= 1 || !(a->family_alpha > 0))
		snprintf(buf, len, "95%%");
	else
		snprintf(buf, len, "%.4g%% (5%% family-wise over %zu tests)",
		    lvl, a->family_size);
}

/* Writes a ratio and its interval ("1.069 [0.939, 1.103]"), or "—". */
static void
ans_ratio(char *buf, size_t len, double est, double lo, double hi)
{
	if (isnan(est))
		snprintf(buf, len, "—");
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", est, lo, hi);
}

/*
 * Writes a verdict in words: "better (-6.8%)", "same", or for an invalid
 * comparison "invalid: " and the short form of reason (NULL: none).
 */
static void
ans_verdict(char *buf, size_t len, enum stats_verdict v, double ratio,
    const char *reason)
{
	char	r[256];

	if ((v == VERDICT_BETTER || v == VERDICT_WORSE) && !isnan(ratio))
		snprintf(buf, len, "%s (%+.1f%%)", stats_verdict_name(v),
		    (ratio - 1) * 100);
	else if (v == VERDICT_INVALID && reason != NULL && *reason != '\0') {
		/* Whole when short ("3 good pairs; at least 5 are needed"). */
		if (strlen(reason) <= 60)
			snprintf(r, sizeof r, "%s", reason);
		else
			report_text_reason(reason, r, sizeof r);
		snprintf(buf, len, "invalid: %s", r);
	} else
		snprintf(buf, len, "%s", stats_verdict_name(v));
}

/* Returns the columns s takes: its UTF-8 characters (one column each). */
static size_t
ans_cols(const char *s)
{
	size_t	n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return (n);
}

/*
 * The headline's tail for rounds = auto: per host its rounds and how it
 * stopped ("local 15 rounds, decided").
 */
static void
ans_auto_rounds(FILE *f, const struct analysis *a)
{
	const struct rep_host	*rh;
	size_t			 i;

	fputs(" on its primary metric, with its interval (rounds = auto: ", f);
	for (i = 0; i < a->nhosts; i++) {
		rh = &a->hosts[i];
		fputs(i > 0 ? "; " : "", f);
		tty_write(f, a->ds->hosts[rh->host].name);
		fprintf(f, " %u round%s, %s", rh->rounds_used,
		    rh->rounds_used == 1 ? "" : "s",
		    seq_stop_name((enum seq_stop)rh->stop));
	}
	fputs(")\n", f);
}

/* Returns the rounds run: with rounds = auto the most a host ran. */
static uint32_t
ans_rounds(const struct analysis *a)
{
	uint32_t	top = 0;
	size_t		i;

	for (i = 0; a->ds->auto_rounds && i < a->nhosts; i++) {
		if (a->hosts[i].rounds_used > top)
			top = a->hosts[i].rounds_used;
	}
	return (top > 0 ? top : a->ds->rounds);
}

/* The scale factor that makes the MAD estimate a normal sigma. */
#define ANS_MAD_SIGMA	1.4826

/*
 * Writes v and its spread sd of metric in one unit, v's ("30.214 ms ±
 * 0.412 ms"); for a metric without a time unit as report_text_value.
 */
static void
ans_pm(const char *metric, double v, double sd, char *buf, size_t len)
{
	static const struct {
		double		 scale;
		const char	*unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	size_t	n = strlen(metric), k;
	char	a[64], b[64];

	if (n > 3 && strcmp(metric + n - 3, "_ns") == 0) {
		for (k = 0; k + 1 < sizeof units / sizeof units[0] &&
		    fabs(v) < units[k].scale; k++)
			;
		snprintf(buf, len, "%.*f %s ± %.*f %s", k == 3 ? 0 : 3,
		    v / units[k].scale, units[k].unit, k == 3 ? 0 : 3,
		    sd / units[k].scale, units[k].unit);
		return;
	}
	report_text_value(metric, v, a, sizeof a);
	report_text_value(metric, sd, b, sizeof b);
	snprintf(buf, len, "%s ± %s", a, b);
}

/*
 * Writes the typical value and spread of variant v's primary metric on
 * host (a dataset index) in bench b: the median and the MAD scaled by
 * 1.4826 of its good measured runs (docs/statistics.md, "The answer's
 * typical values"), net of a subtracted floor; "-" when none.
 */
static void
ans_typical(const struct analysis *a, size_t host, size_t b, size_t v,
    char *buf, size_t len)
{
	const struct dataset	*ds = a->ds;
	const struct ds_sample	*s;
	const char		*mn = ds->benches[b].metrics[0];
	size_t			 hb = host * ds->nbenches + b, i, n = 0;
	size_t			 from, to;
	double			*x, med, mad, fs;

	from = a->hb_start[hb];
	to = a->hb_start[hb + 1];
	snprintf(buf, len, "-");
	if (to <= from)
		return;
	x = xcalloc(to - from, sizeof *x);
	for (i = from; i < to; i++) {
		s = &ds->samples[a->by_hb[i]];
		if (s->variant != v || s->warmup || s->status != 0 ||
		    analysis_value(a, host, s, mn, &x[n]) != 0 ||
		    !isfinite(x[n]))
			continue;
		n++;
	}
	if (n > 0) {
		med = stats_median(x, n);
		for (i = 0; i < n; i++)
			x[i] = fabs(x[i] - med);
		mad = stats_median(x, n) * ANS_MAD_SIGMA;
		fs = strcmp(mn, "wall_ns") == 0 ?
		    report_text_floor_sub(a, host) : 0;
		if (fs > 0 && med <= 0)
			report_text_net_value(mn, med, fs, buf, len);
		else
			ans_pm(mn, med, mad, buf, len);
	}
	free(x);
}

/*
 * Writes the line under a comparison: the variant's and the reference's
 * typical values with their spread, as hyperfine's "Time (mean ± σ)".
 */
static void
ans_typicals(FILE *f, const struct analysis *a, const struct rep_cmp *c)
{
	const struct dataset	*ds = a->ds;
	char			 buf[160];

	fputs("      ", f);
	tty_write(f, ds->variants[c->variant]);
	ans_typical(a, c->host, c->bench, c->variant, buf, sizeof buf);
	fputc(' ', f);
	tty_write(f, buf);
	fputs(", ", f);
	tty_write(f, ds->variants[ds->ref]);
	ans_typical(a, c->host, c->bench, ds->ref, buf, sizeof buf);
	fputc(' ', f);
	tty_write(f, buf);
	fputs(" (median ± MAD × 1.4826)\n", f);
}

/* Writes s for the terminal padded with blanks to width columns. */
static void
ans_tty_pad(FILE *f, const char *s, size_t width)
{
	size_t	n = ans_cols(s);

	tty_write(f, s);
	for (; n < width; n++)
		fputc(' ', f);
}

/* Returns the geomean's clause: "5 comparisons, 3 benchmarks on 2 hosts". */
static void
ans_geo_count(char *buf, size_t len, const struct rep_geo *geo)
{
	if (geo->nhosts > 1)
		snprintf(buf, len, "%zu comparisons, %zu benchmark%s on %zu "
		    "hosts", geo->nused, geo->nbenches,
		    geo->nbenches == 1 ? "" : "s", geo->nhosts);
	else
		snprintf(buf, len, "%zu benchmark%s", geo->nused,
		    geo->nused == 1 ? "" : "s");
}

#define ANS_FAIL_KINDS	20	/* kinds of failure the terminal lists */
#define ANS_FAIL_COLS	200	/* of a reason's last line, at most */

/* Returns 1 when a and b failed alike: host, bench, variant, status, line. */
static int
ans_same_failure(const struct ds_sample *a, const struct ds_sample *b)
{
	const char	*la, *lb;
	size_t		 na, nb;

	if (a->host != b->host || a->bench != b->bench ||
	    a->variant != b->variant || a->status != b->status ||
	    a->signal != b->signal || a->exit_code != b->exit_code)
		return (0);
	la = report_text_last_line(a->err, &na);
	lb = report_text_last_line(b->err, &nb);
	return (na == nb && memcmp(la, lb, na) == 0);
}

/* Writes one kind of failure: host, bench/variant, count, status, reason. */
static void
ans_failure_line(FILE *f, const struct dataset *ds, const struct ds_sample *s,
    size_t count)
{
	char		 line[ANS_FAIL_COLS + 8];
	const char	*last;
	size_t		 len;

	fputs("  ", f);
	tty_write(f, ds->hosts[s->host].name);
	fputs("  ", f);
	tty_write(f, ds->benches[s->bench].name);
	if (ds->variants[s->variant][0] != '\0') {
		fputc('/', f);
		tty_write(f, ds->variants[s->variant]);
	}
	fprintf(f, ": %zu run%s ", count, count == 1 ? "" : "s");
	report_text_status(f, s);
	last = report_text_last_line(s->err, &len);
	if (len > 0) {
		if (len > ANS_FAIL_COLS)
			snprintf(line, sizeof line, "%.*s...",
			    ANS_FAIL_COLS, last);
		else
			snprintf(line, sizeof line, "%.*s", (int)len, last);
		fputs(": ", f);
		tty_write(f, line);
	}
	fputc('\n', f);
}

/*
 * Writes the failed runs, one line per kind of failure (host, bench,
 * variant, status and the last line of its reason) with its count, as
 * report.md's failed-runs tables: the terminal says why, not only how many.
 */
static void
ans_failures(FILE *f, const struct dataset *ds)
{
	const struct ds_sample	*s, *rep[ANS_FAIL_KINDS];
	size_t			 count[ANS_FAIL_KINDS];
	size_t			 i, k, ng = 0, other = 0;

	for (i = 0; i < ds->nsamples; i++) {
		s = &ds->samples[i];
		if (s->status == 0)
			continue;
		for (k = 0; k < ng && !ans_same_failure(rep[k], s); k++)
			;
		if (k < ng)
			count[k]++;
		else if (ng < ANS_FAIL_KINDS) {
			rep[ng] = s;
			count[ng++] = 1;
		} else
			other++;
	}
	if (ng == 0)
		return;
	fputs("failed runs, by kind:\n", f);
	for (k = 0; k < ng; k++)
		ans_failure_line(f, ds, rep[k], count[k]);
	if (other > 0)
		fprintf(f, "  %zu more failed run%s of other kinds (report.md)"
		    "\n", other, other == 1 ? "" : "s");
}

/*
 * Flags each variant retried in more than REP_RETRY_FLAG of its runs on a
 * host: its good retries hide a crash rate that its ratio does not show.
 */
static void
ans_retries(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	size_t			 i, k = 0;

	for (i = 0; i < a->nresults; i++) {
		res = &a->results[i];
		if (res->metric != 0 || !res->retry_flag)
			continue;
		if (k++ == 0)
			fprintf(f, "retried in more than %.0f%% of its runs "
			    "(a crash rate the ratio hides):\n",
			    100 * REP_RETRY_FLAG);
		fputs("  ", f);
		tty_write(f, ds->hosts[res->host].name);
		fputs("  ", f);
		tty_write(f, ds->benches[res->bench].name);
		fputc('/', f);
		tty_write(f, ds->variants[res->variant]);
		fprintf(f, ": %zu of %zu runs retried (%.0f%%)\n",
		    res->runs_retried, res->runs, 100.0 *
		    (double)res->runs_retried / (double)res->runs);
	}
}

void
report_answer_text(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_answer	*ans;
	const struct rep_geo	*geo;
	const struct rep_cmp	*c;
	const struct rep_group	*g;
	char			 ratio[128], verdict[512], count[128], lvl[64];
	size_t			 i, gi, h, b, wh = 0, wb = 0, wm = 0, wr = 0;

	/* Column widths over every line to come. */
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (c->metric != 0)
			continue;
		wh = strlen(ds->hosts[c->host].name) > wh ?
		    strlen(ds->hosts[c->host].name) : wh;
		wb = strlen(ds->benches[c->bench].name) > wb ?
		    strlen(ds->benches[c->bench].name) : wb;
		if (ds->benches[c->bench].nmetrics > 0 &&
		    strlen(ds->benches[c->bench].metrics[0]) > wm)
			wm = strlen(ds->benches[c->bench].metrics[0]);
		ans_ratio(ratio, sizeof ratio, c->ratio, c->lo, c->hi);
		wr = ans_cols(ratio) > wr ? ans_cols(ratio) : wr;
	}
	report_claims_text(f, a);
	tty_write(f, ds->suite_name);
	fprintf(f, ": ratio of each variant to ");
	tty_write(f, ds->variants[ds->ref]);
	if (ds->auto_rounds)
		ans_auto_rounds(f, a);
	else {
		ans_level(a, lvl, sizeof lvl);
		fprintf(f, " on its primary metric, with its interval at %s "
		    "(%u round%s)\n", lvl, ds->rounds, ds->rounds == 1 ? "" :
		    "s");
	}
	(void)report_quantity_lines(f, a, "  ", 0);
	for (i = 0; i < a->nanswers; i++) {
		ans = &a->answers[i];
		tty_write(f, ds->variants[ans->variant]);
		fputs(" vs ", f);
		tty_write(f, ds->variants[ds->ref]);
		fputs(": ", f);
		tty_write(f, ans->headline);
		fputc('\n', f);
		for (gi = 0; gi < a->ngroups; gi++) {
			g = &a->groups[gi];
			if ((geo = analysis_geo(a, gi, ans->variant)) != NULL) {
				fputs("  ", f);
				tty_write(f, g->label);
				ans_ratio(ratio, sizeof ratio, geo->est,
				    geo->lo, geo->hi);
				ans_verdict(verdict, sizeof verdict,
				    geo->verdict, geo->est, NULL);
				ans_geo_count(count, sizeof count, geo);
				if (geo->nused > 0)
					fprintf(f, ": geomean %s over %s, %s\n",
					    ratio, count, verdict);
				else
					fprintf(f, ": no valid comparison, "
					    "%s\n", verdict);
			} else {
				/* Hosts that never gave facts: no geomean. */
				fputs("  ", f);
				tty_write(f, g->known ? g->label :
				    "no facts");
				fputs(": no geomean\n", f);
			}
			for (h = g->from; h < g->to; h++) {
				for (b = 0; b < ds->nbenches; b++) {
					c = analysis_cmp(a, a->hosts[h].host, b,
					    0, ans->variant);
					if (c == NULL)
						continue;
					fputs("    ", f);
					ans_tty_pad(f, ds->hosts[c->host].name,
					    wh + 2);
					ans_tty_pad(f, ds->benches[b].name,
					    wb + 2);
					ans_tty_pad(f, ds->benches[b].nmetrics >
					    0 ? ds->benches[b].metrics[0] : "",
					    wm + 2);
					ans_ratio(ratio, sizeof ratio, c->ratio,
					    c->lo, c->hi);
					ans_tty_pad(f, ratio, wr + 2);
					ans_verdict(verdict, sizeof verdict,
					    c->verdict, c->ratio, c->reason);
					tty_write(f, verdict);
					fputc('\n', f);
					ans_typicals(f, a, c);
				}
			}
		}
	}
	ans_failures(f, ds);
	ans_retries(f, a);
	(void)report_layout(f, a, 0);
	report_machines_shared_text(f, a);
	if (a->nfailed_hosts > 0)
		fprintf(f, "%zu host%s failed: partial results\n",
		    a->nfailed_hosts, a->nfailed_hosts == 1 ? "" : "s");
	if (ds->ended[0] == '\0' || ds->truncated)
		fputs("incomplete record: the run did not finish\n", f);
}

/* Writes one row of answer.md's table. */
static void
ans_md_row(FILE *f, const char *arch, const char *host, const char *bench,
    const char *metric, const char *ratio, const char *verdict)
{
	fputs("| ", f);
	report_md_text(f, arch);
	fputs(" | ", f);
	report_md_text(f, host);
	fputs(" | ", f);
	report_md_text(f, bench);
	fputs(" | ", f);
	report_md_text(f, metric);
	fprintf(f, " | %s | ", ratio);
	report_md_text(f, verdict);
	fputs(" |\n", f);
}

int
report_answer_md(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_answer	*ans;
	const struct rep_geo	*geo;
	const struct rep_cmp	*c;
	const struct rep_group	*g;
	char			 ratio[128], verdict[512], count[160], lvl[64];
	size_t			 i, gi, h, b;

	fputs("### orch: ", f);
	report_md_text(f, ds->suite_name);
	fputs("\n\n", f);
	if (ds->ended[0] == '\0' || ds->truncated)
		fputs("> **Incomplete record:** the run did not finish; this "
		    "covers what was recorded.\n\n", f);
	if (a->nfailed_hosts > 0)
		fprintf(f, "> **%zu host%s failed:** partial results.\n\n",
		    a->nfailed_hosts, a->nfailed_hosts == 1 ? "" : "s");
	report_md_shared(f, a);
	report_claims_answer_md(f, a);
	for (i = 0; i < a->nanswers; i++) {
		ans = &a->answers[i];
		fputs("**", f);
		report_md_text(f, ds->variants[ans->variant]);
		fputs(" vs ", f);
		report_md_text(f, ds->variants[ds->ref]);
		fputs(": ", f);
		report_md_text(f, ans->headline);
		fputs("**\n\n| architecture | host | benchmark | metric | "
		    "ratio [CI] | verdict |\n|---|---|---|---|---|---|\n",
		    f);
		for (gi = 0; gi < a->ngroups; gi++) {
			g = &a->groups[gi];
			if ((geo = analysis_geo(a, gi, ans->variant)) != NULL) {
				ans_ratio(ratio, sizeof ratio, geo->est,
				    geo->lo, geo->hi);
				ans_verdict(verdict, sizeof verdict,
				    geo->verdict, geo->est, NULL);
				ans_geo_count(count, sizeof count, geo);
				fputs("| **", f);
				report_md_text(f, g->label);
				if (geo->nused > 0)
					fprintf(f, "** | all | geomean of %s "
					    "| | **%s** | **%s** |\n", count,
					    ratio, verdict);
				else
					fprintf(f, "** | all | no valid "
					    "comparison | | — | **%s** |\n",
					    verdict);
			} else {
				fputs("| **", f);
				report_md_text(f, g->known ? g->label :
				    "no facts");
				fputs("** | all | no geomean | | — | |\n", f);
			}
			for (h = g->from; h < g->to; h++) {
				for (b = 0; b < ds->nbenches; b++) {
					c = analysis_cmp(a, a->hosts[h].host, b,
					    0, ans->variant);
					if (c == NULL)
						continue;
					ans_ratio(ratio, sizeof ratio, c->ratio,
					    c->lo, c->hi);
					ans_verdict(verdict, sizeof verdict,
					    c->verdict, c->ratio, c->reason);
					ans_md_row(f, "",
					    ds->hosts[c->host].name,
					    ds->benches[b].name,
					    ds->benches[b].nmetrics > 0 ?
					    ds->benches[b].metrics[0] : "",
					    ratio, verdict);
				}
			}
		}
		fputs("\n", f);
	}
	ans_level(a, lvl, sizeof lvl);
	fprintf(f, "Ratio = variant / reference on each benchmark's primary "
	    "metric: the Hodges-Lehmann estimate from the per-round paired "
	    "ratios, with its interval at %s; geometric means with a "
	    "bootstrap interval at the same level%s; %u round%s, seed %llu, "
	    "min_effect %g. Run ", lvl, a->inverted ? " (in the geomean, "
	    "higher-is-better metrics are inverted, so below 1 is better)" :
	    "", ans_rounds(a), ans_rounds(a) == 1 ? "" : "s",
	    (unsigned long long)ds->seed, ds->min_effect);
	report_md_text(f, ds->run_id);
	fputs(", orch ", f);
	report_md_text(f, ds->orch_version);
	fputs("; the full report is report.md.\n", f);
	return (ferror(f) ? -1 : 0);
}
