/* Text report.md and report.html share, written once through a format table. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis/seq.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-text.h"

void
report_text_value(const char *metric, double v, char *buf, size_t len)
{
	size_t	n = strlen(metric);

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (n > 3 && strcmp(metric + n - 3, "_ns") == 0) {
		if (v >= 1e9)
			snprintf(buf, len, "%.3f s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%.3f ms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%.3f us", v / 1e3);
		else
			snprintf(buf, len, "%.0f ns", v);
		return;
	}
	if (n > 3 && strcmp(metric + n - 3, "_kb") == 0) {
		if (v >= 1024 * 1024)
			snprintf(buf, len, "%.2f GiB", v / (1024 * 1024));
		else if (v >= 1024)
			snprintf(buf, len, "%.2f MiB", v / 1024);
		else
			snprintf(buf, len, "%.0f KiB", v);
		return;
	}
	if ((v == floor(v) && fabs(v) < 1e15) || fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}


/*
 * Writes what a host's measurement saw — floor, first runs, load waits,
 * notes, facts — with esc for text from the record and code_open and
 * code_close around names (Markdown backticks or HTML <code>).
 */
static void
report_text_saw(FILE *f, const struct analysis *a, size_t i,
    void (*esc)(FILE *, const char *), const char *code_open,
    const char *code_close)
{
	const struct dataset	*ds = a->ds;
	const struct rep_host	*rh = &a->hosts[i];
	const struct ds_host	*h = &ds->hosts[rh->host];
	const struct hyg_first	*fr;
	char			 b1[64], b2[64];
	size_t			 k, n;

	if (rh->hyg.floor.n > 0) {
		report_text_value("wall_ns", rh->hyg.floor.median, b1,
		    sizeof b1);
		fprintf(f, "harness floor %s median (IQR %.1f%%, %zu runs)%s",
		    b1, rh->hyg.floor.iqr_pct, rh->hyg.floor.n,
		    rh->floor_sub > 0 ? ", subtracted from wall_ns" :
		    ", not subtracted");
	} else
		fputs("harness floor not measured", f);
	for (k = 0; k < rh->hyg.nfirst; k++) {
		fr = &rh->hyg.first[k];
		report_text_value("wall_ns", fr->first_ns, b1, sizeof b1);
		report_text_value("wall_ns", fr->median_ns, b2, sizeof b2);
		fputs("; first run of ", f);
		esc(f, ds->variants[fr->variant]);
		fprintf(f, "'s freshly pushed file %s (%s", b1, code_open);
		esc(f, ds->benches[fr->bench].name);
		fprintf(f, "%s, seq %u) vs %s median measured", code_close,
		    fr->seq, b2);
	}
	if (rh->hyg.nwaits > 0)
		fprintf(f, "; waited for the load %zu time%s (longest %.1f s)",
		    rh->hyg.nwaits, rh->hyg.nwaits == 1 ? "" : "s",
		    (double)rh->hyg.waited_ms / 1000);
	report_text_gate(f, rh, h);
	for (n = 0, k = 0; k < ds->nnotes && n < 5; k++) {
		if (ds->notes[k].host != rh->host ||
		    strcmp(ds->notes[k].state, "waiting-load") == 0)
			continue;
		fputs(n++ ? "; " : "; agent notes: ", f);
		esc(f, ds->notes[k].detail);
	}
	for (n = 0, k = 0; k < h->facts.nextra; k++) {
		if (strcmp(h->facts.extra[k].key, "null_sha") == 0)
			continue;
		fputs(n++ ? ", " : "; facts: ", f);
		esc(f, h->facts.extra[k].key);
		fputc('=', f);
		esc(f, h->facts.extra[k].value);
	}
}

void
report_text_reason(const char *reason, char *buf, size_t len)
{
	size_t	n = strcspn(reason, ":;"), skip = 0;

	/*
	 * "round 2: B took ... ns after the harness floor ...": the round
	 * alone says nothing, so the short form keeps what follows it.
	 */
	if (strncmp(reason, "round ", 6) == 0 && reason[n] == ':' &&
	    strspn(reason + 6, "0123456789") == n - 6 && n > 6) {
		skip = n + 1;
		n = skip + strcspn(reason + skip, ":;");
	}
	snprintf(buf, len, "%.*s", (int)n, reason);
}

void
report_text_gate(FILE *f, const struct rep_host *rh, const struct ds_host *h)
{
	double	cores = h->facts.cores > 0 ? h->facts.cores : 1;

	if (!h->has_plan || h->max_load > 0)
		return;
	fputs("; load gate off (max_load 0): measured whatever the "
	    "machine's load", f);
	if (rh->samples == 0 || isnan(rh->load_max))
		return;
	fprintf(f, ", 1-minute load up to %.2f on %u core%s", rh->load_max,
	    h->facts.cores, h->facts.cores == 1 ? "" : "s");
	if (rh->load_max > DEFAULT_MAX_LOAD * cores)
		fprintf(f, ", above the %.2f the default gate allows",
		    DEFAULT_MAX_LOAD * cores);
}

/* Writes host i's name, in code, opening a list item. */
static void
report_text_host_item(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t i)
{
	fputs(fmt->item_open, f);
	fputs(fmt->code_open, f);
	fmt->name(f, a->ds->hosts[a->hosts[i].host].name);
	fputs(fmt->code_close, f);
}

void
report_text_measures(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, const struct rep_group *g)
{
	size_t	i;

	fputs(fmt->para_open, f);
	fputs("Measurement:", f);
	fputs(fmt->para_close, f);
	fputs(fmt->list_open, f);
	for (i = g->from; i < g->to; i++) {
		report_text_host_item(f, fmt, a, i);
		fputs(": ", f);
		report_text_saw(f, a, i, fmt->text, fmt->code_open,
		    fmt->code_close);
		fputs(fmt->item_close, f);
	}
	fputs(fmt->list_close, f);
}

void
report_text_no_facts(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, const struct rep_group *g)
{
	const struct ds_host	*h;
	size_t			 i;

	fputs(fmt->list_open, f);
	for (i = g->from; i < g->to; i++) {
		h = &a->ds->hosts[a->hosts[i].host];
		report_text_host_item(f, fmt, a, i);
		fputs(": no facts and no runs; ", f);
		fmt->text(f, h->error[0] ? h->error : "it never started");
		fputs(fmt->item_close, f);
	}
	fputs(fmt->list_close, f);
}

void
report_text_estimate(FILE *f, double v)
{
	fprintf(f, "%.3f", v);
}

void
report_text_p(FILE *f, double p)
{
	fprintf(f, "%.2g", p);
}

void
report_text_mde(FILE *f, double mde)
{
	fprintf(f, "%.1f%%", mde * 100);
}

void
report_text_interval(FILE *f, double est, double lo, double hi, int ok)
{
	if (!ok) {
		fputs("—", f);
		return;
	}
	report_text_estimate(f, est);
	if (!(lo > 0) || !isfinite(hi)) {
		fputs(" [unbounded: too few rounds]", f);
		return;
	}
	fputs(" [", f);
	report_text_estimate(f, lo);
	fputs(", ", f);
	report_text_estimate(f, hi);
	fputc(']', f);
}

void
report_text_ratio(FILE *f, const struct rep_cmp *c)
{
	report_text_interval(f, c->ratio, c->lo, c->hi,
	    c->verdict != VERDICT_INVALID && isfinite(c->ratio));
}

void
report_text_cmp_notes(FILE *f, const struct report_fmt *fmt,
    const struct rep_cmp *c)
{
	if (c->verdict == VERDICT_INVALID)
		return;
	if (c->widen > 1) {
		fprintf(f, "<br>%srounds serially correlated (lag-1 r %.2f): "
		    "interval widened ×%.2f (variance ×%.1f)", fmt->why_open,
		    c->r1, c->scale, c->widen);
		fputs(fmt->aside_close, f);
	}
	if (c->verdict == VERDICT_INCONCLUSIVE && c->decide_rounds > 0) {
		fprintf(f, "<br>%sabout %zu rounds would decide it at "
		    "min_effect", fmt->why_open, c->decide_rounds);
		fputs(fmt->aside_close, f);
	}
}

void
report_text_matrix_cell(FILE *f, const struct report_fmt *fmt,
    const struct rep_cmp *c)
{
	char	reason[256];

	if (c == NULL) {
		fputs("—", f);
		return;
	}
	fmt->verdict(f, c->verdict, c->ratio);
	fputs("<br>", f);
	if (c->verdict == VERDICT_INVALID) {
		report_text_reason(c->reason, reason, sizeof reason);
		fputs(fmt->reason_open, f);
		fmt->text(f, reason);
		fputs(fmt->reason_close, f);
	} else {
		fputs(fmt->ratio_open, f);
		report_text_ratio(f, c);
		fputs(fmt->ratio_close, f);
	}
	if (c->files == REP_FILES_AA)
		report_text_aa(f, fmt);
	report_text_cmp_notes(f, fmt, c);
}

void
report_text_aa(FILE *f, const struct report_fmt *fmt)
{
	fputs("<br>", f);
	fputs(fmt->aa_open, f);
	fputs("A/A comparison (identical files)", f);
	fputs(fmt->aside_close, f);
}

void
report_text_geo_counts(FILE *f, const struct rep_geo *geo)
{
	size_t	k, vd;

	for (k = 0, vd = 0; vd <= VERDICT_INVALID; vd++) {
		if (geo->count[vd] > 0)
			fprintf(f, "%s%zu %s", k++ ? ", " : "", geo->count[vd],
			    stats_verdict_name((enum stats_verdict)vd));
	}
}

void
report_text_geo_intro(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, const char *end)
{
	fputs(fmt->para_open, f);
	fprintf(f, "Geometric mean of each variant's primary-metric ratios per "
	    "architecture, over every valid comparison of its hosts, with a "
	    "bootstrap interval at the family's level that resamples rounds "
	    "jointly across benchmarks%s%s", a->inverted ? "; ratios of "
	    "higher-is-better metrics are inverted, so below 1 is better" :
	    "", end);
	fputs(fmt->para_close, f);
}

void
report_text_family(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct rep_host	*rh;
	char			 stop[2048];
	size_t			 i, k;

	fputs(fmt->para_open, f);
	if (a->family_size == 0) {
		fputs("No primary comparison could be tested: each is invalid "
		    "(the matrix says why).", f);
		fputs(fmt->para_close, f);
		return;
	}
	fprintf(f, "Primary verdicts (this matrix, the geometric means, the "
	    "answer and %s--fail-on%s) are one family of %zu test%s held to a "
	    "%.0f%% family-wise error rate: each is tested at p ≤ %.2g "
	    "(Bonferroni), its interval at %.2f%%. Secondary metrics are "
	    "judged one comparison at a time (95%%). See "
	    "docs/statistics.md.", fmt->code_open, fmt->code_close,
	    a->family_size, a->family_size == 1 ? "" : "s", STATS_ALPHA * 100,
	    a->family_alpha, (1 - a->family_alpha) * 100);
	fputs(fmt->para_close, f);
	for (k = 0, i = 0; i < a->nhosts; i++) {
		rh = &a->hosts[i];
		if (isnan(rh->mde))
			continue;
		if (k++ == 0) {
			fputs(fmt->para_open, f);
			fputs("Resolution (effect found with 80% power, median "
			    "over the host's primary comparisons): ", f);
		} else
			fputs(", ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, a->ds->hosts[rh->host].name);
		fputs(fmt->code_close, f);
		if (isfinite(rh->mde)) {
			fputs(" resolves ", f);
			report_text_mde(f, rh->mde);
		}
		else
			fprintf(f, " cannot prove an effect at %u rounds",
			    a->ds->rounds);
	}
	if (k > 0) {
		fputc('.', f);
		fputs(fmt->para_close, f);
	}
	for (i = 0; a->ds->auto_rounds && i < a->nhosts; i++) {
		if (i == 0) {
			fputs(fmt->para_open, f);
			fputs("Adaptive rounds (rounds = auto, alpha spent "
			    "over the looks: docs/statistics.md):", f);
			fputs(fmt->para_close, f);
			fputs(fmt->stops_open, f);
		}
		report_text_host_item(f, fmt, a, i);
		report_text_stop(a, &a->hosts[i], stop, sizeof stop);
		fmt->text(f, stop);
		fputs(fmt->item_close, f);
		if (i + 1 == a->nhosts)
			fputs(fmt->list_close, f);
	}
	for (i = 0; i < a->nhosts; i++) {
		rh = &a->hosts[i];
		if (!(rh->widen > 1))
			continue;
		fputs(fmt->alert_open, f);
		fputs("Rounds on ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, a->ds->hosts[rh->host].name);
		fputs(fmt->code_close, f);
		fprintf(f, " are serially correlated (mean lag-1 r %.2f over "
		    "%zu rounds): its primary intervals are widened (variance "
		    "up to ×%.1f).", rh->r1, rh->r1_n, rh->widen);
		fputs(fmt->alert_close, f);
	}
}

void
report_text_no_ratio(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t host, size_t b)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	size_t			 i;

	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (c->host != host || c->bench != b || c->metric != 0 ||
		    c->verdict != VERDICT_INVALID)
			continue;
		fputs(fmt->alert_open, f);
		fputs(fmt->bold_open, f);
		fputs("No ratio for ", f);
		fmt->name(f, ds->variants[c->variant]);
		fputs(" vs ", f);
		fmt->name(f, ds->variants[ds->ref]);
		fputs(":", f);
		fputs(fmt->bold_close, f);
		fputc(' ', f);
		fmt->text(f, c->reason);
		fputs(fmt->alert_close, f);
	}
}

double
report_text_floor_sub(const struct analysis *a, size_t host)
{
	size_t	i;

	for (i = 0; i < a->nhosts; i++) {
		if (a->hosts[i].host == host)
			return (a->hosts[i].floor_sub);
	}
	return (0);
}

void
report_text_net_value(const char *metric, double v, double fs,
    char *buf, size_t len)
{
	char	fl[64];

	if (fs > 0 && v <= 0 && strcmp(metric, "wall_ns") == 0) {
		report_text_value(metric, fs, fl, sizeof fl);
		snprintf(buf, len, "below the floor (%s)", fl);
		return;
	}
	report_text_value(metric, v, buf, len);
}

void
report_text_range(const struct analysis *a, const char *metric,
    const struct rep_result *res, char *med, char *lo, char *hi, size_t len)
{
	double	fs = report_text_floor_sub(a, res->host);
	int	n = res->sum.n > 0;

	report_text_net_value(metric, n ? res->sum.median : NAN, fs, med, len);
	report_text_net_value(metric, n ? res->sum.min : NAN, fs, lo, len);
	report_text_net_value(metric, n ? res->sum.max : NAN, fs, hi, len);
}

void
report_text_spread(const struct rep_result *res, char *iqr, char *cv,
    size_t len)
{
	if (res->sum.n == 0 || !(res->sum.iqr_pct >= 0))
		snprintf(iqr, len, "-");
	else
		snprintf(iqr, len, "%.1f", res->sum.iqr_pct);
	if (res->sum.n == 0 || !(res->sum.cv >= 0))
		snprintf(cv, len, "-");
	else
		snprintf(cv, len, "%.1f", res->sum.cv * 100);
}

/* Sets *top and *low to the most and fewest rounds a host ran (0: none). */
static void
rt_rounds_used(const struct analysis *a, uint32_t *top, uint32_t *low)
{
	uint32_t	u;
	size_t		i;

	*top = 0;
	*low = UINT32_MAX;
	for (i = 0; i < a->nhosts; i++) {
		if ((u = a->hosts[i].rounds_used) == 0)
			continue;
		*top = u > *top ? u : *top;
		*low = u < *low ? u : *low;
	}
}

/*
 * Writes what follows the warmups in report_text_plan's parenthesis: with
 * rounds = auto "; rounds = auto, at most 200; per host: a 75, b 40" (the
 * hosts when they differ), else the hosts that ran fewer rounds than
 * planned, "; twocore ran 3".
 */
static void
rt_plan_rounds(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	uint32_t		 top, low, u;
	size_t			 i, k = 0;

	rt_rounds_used(a, &top, &low);
	if (ds->auto_rounds && top > 0)
		fprintf(f, "; rounds = auto, at most %u", ds->rounds);
	for (i = 0; i < a->nhosts; i++) {
		if ((u = a->hosts[i].rounds_used) == 0)
			continue;
		if (ds->auto_rounds && top > 0 && low != top) {
			fputs(k++ == 0 ? "; per host: " : ", ", f);
			fmt->name(f, ds->hosts[a->hosts[i].host].name);
			fprintf(f, " %u", u);
		} else if (!ds->auto_rounds && u < ds->rounds) {
			fputs("; ", f);
			fmt->name(f, ds->hosts[a->hosts[i].host].name);
			fprintf(f, " ran %u", u);
		}
	}
}

void
report_text_plan(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	uint32_t		 top, low;

	fputs(" (", f);
	fmt->text(f, ds->suite_path);
	fprintf(f, "): %zu variants over ", ds->nvariants);
	/* With rounds = auto, the most a host ran; else the planned. */
	rt_rounds_used(a, &top, &low);
	fprintf(f, "%u interleaved rounds (%u warmup run%s each first",
	    ds->auto_rounds && top > 0 ? top : ds->rounds, ds->warmup,
	    ds->warmup == 1 ? "" : "s");
	rt_plan_rounds(f, fmt, a);
	fputs("), reference ", f);
	fputs(fmt->code_open, f);
	fmt->name(f, ds->variants[ds->ref]);
	fputs(fmt->code_close, f);
	fprintf(f, ", min_effect %.3g", ds->min_effect);
}

void
report_text_across(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t ncols)
{
	fputs(fmt->para_open, f);
	if (ncols == 0) {
		fputs("No host gave results.", f);
		fputs(fmt->para_close, f);
		return;
	}
	fputs("Primary metric of each benchmark; ratio = variant / reference "
	    "(Hodges–Lehmann estimate from the per-round paired ratios) with "
	    "the interval of its Wilcoxon signed-rank test. One column per "
	    "host, under its architecture and CPU model.", f);
	fputs(fmt->para_close, f);
	report_text_family(f, fmt, a);
}

void
report_text_versions(FILE *f, const struct report_fmt *fmt,
    const struct dataset *ds)
{
	fputs(fmt->item_open, f);
	fputs("orch ", f);
	fmt->text(f, ds->orch_version);
	fputs("; started ", f);
	fmt->text(f, ds->started);
	fputs(", ended ", f);
	fmt->text(f, ds->ended[0] ? ds->ended : "(not recorded)");
	fputs(fmt->item_close, f);
}

void
report_text_resumed(FILE *f, const struct report_fmt *fmt,
    const struct dataset *ds)
{
	if (ds->resumed <= 0)
		return;
	fputs(fmt->item_open, f);
	fprintf(f, "resumed %d time%s after an interruption (%sorch run "
	    "--resume%s)", ds->resumed, ds->resumed == 1 ? "" : "s",
	    fmt->code_open, fmt->code_close);
	fputs(fmt->item_close, f);
}

void
report_text_benches(FILE *f, const struct report_fmt *fmt,
    const struct dataset *ds)
{
	size_t	b, m;

	fputs(fmt->item_open, f);
	fputs("benchmarks: ", f);
	for (b = 0; b < ds->nbenches; b++) {
		fputs(b ? ", " : "", f);
		fputs(fmt->code_open, f);
		fmt->name(f, ds->benches[b].name);
		fputs(fmt->code_close, f);
		fputs(" (", f);
		for (m = 0; m < ds->benches[b].nmetrics; m++) {
			fputs(m ? ", " : "", f);
			fmt->name(f, ds->benches[b].metrics[m]);
			fputs(ds->benches[b].higher[m] ? " higher is better" :
			    " lower is better", f);
		}
		fputs(")", f);
	}
	fputs(fmt->item_close, f);
}

void
report_text_host_prog(FILE *f, const struct report_fmt *fmt,
    const struct ds_file *file)
{
	if (file->host_prog == NULL)
		return;
	fputs(" (the host's own ", f);
	fputs(fmt->code_open, f);
	fputs("host:", f);
	fmt->text(f, file->host_prog);
	fputs(fmt->code_close, f);
	if (file->version[0] != '\0') {
		fputs("; --version: ", f);
		fmt->text(f, file->version);
	}
	fputs(")", f);
}

/*
 * Writes the hosts of group g whose comparison of variant v has files
 * want (REP_FILES_*), as a list of names after lead; returns how many.
 */
static size_t
report_text_hosts(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, const struct rep_group *g, size_t v, int want,
    const char *lead)
{
	const struct rep_cmp	*c;
	size_t			 i, k = 0;

	for (i = g->from; i < g->to; i++) {
		c = analysis_cmp(a, a->hosts[i].host, 0, 0, v);
		if (c == NULL || c->files != want)
			continue;
		fputs(k++ == 0 ? lead : ", ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, a->ds->hosts[a->hosts[i].host].name);
		fputs(fmt->code_close, f);
	}
	return (k);
}

void
report_text_files_notes(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, const struct rep_group *g)
{
	const struct dataset	*ds = a->ds;
	char			 aa[256], same[256];
	size_t			 v;

	snprintf(aa, sizeof aa, "%s%sA/A comparison (identical files):%s on ",
	    fmt->note_open, fmt->bold_open, fmt->bold_close);
	snprintf(same, sizeof same, "%sOn ", fmt->para_open);
	for (v = 0; v < ds->nvariants; v++) {
		if (v == ds->ref || ds->nbenches == 0)
			continue;
		if (report_text_hosts(f, fmt, a, g, v, REP_FILES_AA, aa) > 0) {
			fputs(", ", f);
			fmt->name(f, ds->variants[v]);
			fputs(" runs byte-identical files with the same "
			    "settings as ", f);
			fmt->name(f, ds->variants[ds->ref]);
			fputs("; its verdicts measure the host's noise, not a "
			    "change.", f);
			fputs(fmt->note_close, f);
		}
		if (report_text_hosts(f, fmt, a, g, v, REP_FILES_SAME,
		    same) > 0) {
			fputs(", ", f);
			fmt->name(f, ds->variants[v]);
			fputs(" runs the same files as ", f);
			fmt->name(f, ds->variants[ds->ref]);
			fputs(" (equal SHA-256) and differs only in its "
			    "settings (env, args).", f);
			fputs(fmt->para_close, f);
		}
	}
}

/*
 * Writes " (v n, w m)": each variant's failed (retried set: retried) runs
 * of (host, bench b), when any.
 */
static void
report_text_per_variant(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t host, size_t b, int retried)
{
	const struct rep_result	*res;
	size_t			 v, k = 0, n;

	for (v = 0; v < a->ds->nvariants; v++) {
		if ((res = analysis_result(a, host, b, 0, v)) == NULL)
			continue;
		n = retried ? res->retried : res->failed;
		if (n == 0)
			continue;
		fputs(k++ ? ", " : " (", f);
		fmt->name(f, a->ds->variants[v]);
		fprintf(f, " %zu", n);
	}
	if (k > 0)
		fputc(')', f);
}

void
report_text_bench_counts(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t host, size_t b, int named)
{
	const struct dataset	*ds = a->ds;
	const struct rep_result	*res;
	size_t			 v, nf = 0, nr = 0;

	for (v = 0; v < ds->nvariants; v++) {
		if ((res = analysis_result(a, host, b, 0, v)) != NULL) {
			nf += res->failed;
			nr += res->retried;
		}
	}
	if (nf == 0 && nr == 0)
		return;
	fputs(fmt->small_open, f);
	if (named) {
		fputs("Runs of ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, ds->benches[b].name);
		fputs(fmt->code_close, f);
		fputs(" on ", f);
		fmt->name(f, ds->hosts[host].name);
		fputs(": ", f);
	} else
		fputs("Runs: ", f);
	fprintf(f, "%zu failed", nf);
	report_text_per_variant(f, fmt, a, host, b, 0);
	fprintf(f, ", %zu retried", nr);
	report_text_per_variant(f, fmt, a, host, b, 1);
	fputs("; a round whose final attempt failed has no pair.", f);
	fputs(fmt->para_close, f);
}

const char *
report_text_last_line(const char *s, size_t *len)
{
	size_t	end = strlen(s), st;

	while (end > 0 && s[end - 1] == '\n')
		end--;
	for (st = end; st > 0 && s[st - 1] != '\n'; st--)
		;
	*len = end - st;
	return (s + st);
}

void
report_text_status(FILE *f, const struct ds_sample *s)
{
	fputs(proto_status_name(s->status), f);
	if (s->status == PROTO_ST_SIGNAL)
		fprintf(f, " %d", s->signal);
	else if (s->status == PROTO_ST_FAILED && s->exit_code != 0)
		fprintf(f, " (exit %d)", s->exit_code);
	else if (s->status == PROTO_ST_FAILED)
		fputs(" (no exit code)", f);	/* its reason says why */
}

/* A column of a table: its title, and whether Markdown aligns it right. */
struct report_col {
	const char	*title;
	int		 right;
};

/* Writes a table's opening and its header row of n columns. */
static void
report_text_table_head(FILE *f, const struct report_fmt *fmt,
    const struct report_col *cols, size_t n)
{
	size_t	i;

	fputs(fmt->table_open, f);
	fputs(fmt->head_open, f);
	for (i = 0; i < n; i++) {
		fputs(fmt->th_open, f);
		fputs(cols[i].title, f);
		fputs(fmt->th_close, f);
	}
	fputs(fmt->head_close, f);
	fputs(fmt->rule_open, f);
	for (i = 0; i < n; i++)
		fputs(cols[i].right ? fmt->rule_right : fmt->rule_left, f);
	fputs(fmt->rule_close, f);
}

void
report_text_host_table(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t from, size_t to)
{
	static const struct report_col	cols[] = {
		{ "host", 0 }, { "os", 0 }, { "cores", 1 }, { "memory", 1 },
		{ "kernel", 0 }, { "agent", 0 }, { "samples", 1 },
		{ "failed", 1 }, { "retries", 1 },
		{ "load (median / max)", 0 }, { "status", 0 },
	};
	const struct ds_host		*h;
	const struct rep_host		*rh;
	size_t				 i;

	report_text_table_head(f, fmt, cols, sizeof cols / sizeof cols[0]);
	for (i = from; i < to; i++) {
		rh = &a->hosts[i];
		h = &a->ds->hosts[rh->host];
		fputs(fmt->row_open, f);
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_code_open, f);
		fmt->name(f, h->name);
		fputs(fmt->cell_code_close, f);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		fmt->text(f, h->facts.os);
		fputs(fmt->cell_close, f);
		fprintf(f, "%s%u%s", fmt->num_open, h->facts.cores,
		    fmt->cell_close);
		fprintf(f, "%s%.1f GiB%s", fmt->num_open,
		    (double)h->facts.mem_kb / (1024 * 1024), fmt->cell_close);
		fputs(fmt->cell_open, f);
		fmt->text(f, h->facts.kernel);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		fmt->text(f, h->agent_version);
		fputs(fmt->cell_close, f);
		fprintf(f, "%s%zu%s%s%zu%s%s%zu%s", fmt->num_open, rh->samples,
		    fmt->cell_close, fmt->num_open, rh->failed,
		    fmt->cell_close, fmt->num_open, rh->retries,
		    fmt->cell_close);
		fprintf(f, "%s%.2f / %.2f%s", fmt->num_open, rh->load_med,
		    rh->load_max, fmt->cell_close);
		fputs(fmt->cell_open, f);
		if (h->failed || !h->ended) {
			fputs(fmt->failed_open, f);
			fputs("failed", f);
			fputs(fmt->failed_close, f);
			fmt->text(f, h->ended ? h->error :
			    "the record ends before this host finished");
		} else
			fputs("ok", f);
		fputs(fmt->cell_close, f);
		fputs(fmt->row_close, f);
	}
	fputs(fmt->table_close, f);
}

/* Returns the verdict class a headline reads as, for its colour. */
static enum stats_verdict
report_text_headline_verdict(const char *headline)
{
	static const enum stats_verdict	order[] = {
		VERDICT_BETTER, VERDICT_WORSE, VERDICT_SAME,
		VERDICT_INCONCLUSIVE, VERDICT_INVALID
	};
	size_t				i, n;

	for (i = 0; i < sizeof order / sizeof order[0]; i++) {
		n = strlen(stats_verdict_name(order[i]));
		if (strncmp(headline, stats_verdict_name(order[i]), n) == 0)
			return (order[i]);
	}
	return (VERDICT_INCONCLUSIVE);	/* "mixed" */
}

void
report_text_answers(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct rep_answer	*ans;
	size_t			 i;

	fputs(fmt->answers_open, f);
	for (i = 0; i < a->nanswers; i++) {
		ans = &a->answers[i];
		fputs(fmt->item_open, f);
		fputs(fmt->lead_open, f);
		fmt->name(f, ds->variants[ans->variant]);
		fputs(" vs ", f);
		fmt->name(f, ds->variants[ds->ref]);
		fputs(":", f);
		fputs(fmt->lead_close, f);
		if (fmt->verdict_open != NULL) {
			fputs(fmt->verdict_open, f);
			fputs(stats_verdict_name(
			    report_text_headline_verdict(ans->headline)), f);
		}
		fputs(fmt->verdict_mid, f);
		fmt->text(f, ans->headline);
		fputs(fmt->verdict_close, f);
		fputs(fmt->detail_open, f);
		fmt->prose(f, ans->detail);
		fputs(fmt->detail_close, f);
		fputs(fmt->item_close, f);
	}
	fputs(fmt->answers_close, f);
	fputs(fmt->small_open, f);
	fputs("Per architecture, the verdict of the geometric mean of the "
	    "primary metric's ratios over its benchmarks and hosts; the "
	    "matrix below has each benchmark's own.", f);
	fputs(fmt->para_close, f);
	fputs(fmt->section_close, f);
}

void
report_text_banners(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct ds_host	*h;
	const struct rep_group	*g;
	size_t			 i;

	if (ds->ended[0] == '\0' || ds->truncated) {
		fputs(fmt->warn_open, f);
		fputs(fmt->bold_open, f);
		fputs("Incomplete record:", f);
		fputs(fmt->bold_close, f);
		fputs(" the run did not finish; the numbers below cover what "
		    "was recorded.", f);
		fputs(fmt->warn_close, f);
	}
	if (a->nfailed_hosts == 0)
		return;
	fputs(fmt->banner_open, f);
	fputs(fmt->bold_open, f);
	fprintf(f, "%zu host%s failed.", a->nfailed_hosts,
	    a->nfailed_hosts == 1 ? "" : "s");
	fputs(fmt->bold_close, f);
	fprintf(f, " Partial results are kept; no verdict is drawn from "
	    "fewer than %d good pairs.", STATS_MIN_PAIRS);
	fputs(fmt->banner_list, f);
	for (i = 0; i < a->nhosts; i++) {
		h = &ds->hosts[a->hosts[i].host];
		g = &a->groups[a->hosts[i].group];
		if (!h->failed && h->ended)
			continue;
		fputs(fmt->banner_item, f);
		fputs(fmt->code_open, f);
		fmt->name(f, h->name);
		fputs(fmt->code_close, f);
		fputs(" (", f);
		fmt->text(f, g->known ? g->label : "no facts");
		fputs("): ", f);
		fmt->text(f, h->ended ? (h->error[0] ? h->error : "failed") :
		    "the record ends before this host finished");
		fputs(fmt->item_close, f);
	}
	fputs(fmt->banner_close, f);
}

#define REPORT_FAIL_GROUPS	64	/* kinds of failure told
					   apart per host */
#define REPORT_FAIL_ROWS	20	/* of them, rows in the table */

/* Returns 1 when failed samples a and b failed the same way. */
static int
report_text_same_failure(const struct ds_sample *a, const struct ds_sample *b)
{
	const char	*la, *lb;
	size_t		 na, nb;

	if (a->bench != b->bench || a->variant != b->variant ||
	    a->status != b->status || a->signal != b->signal ||
	    a->exit_code != b->exit_code)
		return (0);
	la = report_text_last_line(a->err, &na);
	lb = report_text_last_line(b->err, &nb);
	return (na == nb && memcmp(la, lb, na) == 0);
}

/*
 * One row per kind of failure (bench, variant, status and the last line
 * of its reason): a program that crashes every time is one row with its
 * count, not one per run.
 */
void
report_text_failures(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a, size_t host)
{
	static const struct report_col	cols[] = {
		{ "bench", 0 }, { "variant", 0 }, { "status", 0 },
		{ "runs", 1 }, { "first (seq, round)", 1 }, { "detail", 0 },
	};
	const struct dataset		*ds = a->ds;
	const struct ds_sample		*s, *rep[REPORT_FAIL_GROUPS];
	const char			*last;
	size_t				 count[REPORT_FAIL_GROUPS];
	size_t				 i, k, ng = 0, other = 0, len;

	for (i = 0; i < ds->nsamples; i++) {
		s = &ds->samples[i];
		if (s->host != host || s->status == 0)
			continue;
		for (k = 0; k < ng; k++) {
			if (report_text_same_failure(rep[k], s))
				break;
		}
		if (k < ng)
			count[k]++;
		else if (ng < REPORT_FAIL_GROUPS) {
			rep[ng] = s;
			count[ng++] = 1;
		} else
			other++;
	}
	if (ng == 0)
		return;
	fputs(fmt->fail_open, f);
	fputs("Failed runs on ", f);
	fputs(fmt->cell_code_open, f);
	fmt->name(f, ds->hosts[host].name);
	fputs(fmt->cell_code_close, f);
	fputs(fmt->fail_close, f);
	report_text_table_head(f, fmt, cols, sizeof cols / sizeof cols[0]);
	for (k = 0; k < ng; k++) {
		if (k >= REPORT_FAIL_ROWS) {
			other += count[k];
			continue;
		}
		s = rep[k];
		fputs(fmt->row_open, f);
		fputs(fmt->cell_open, f);
		fmt->name(f, ds->benches[s->bench].name);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		fmt->name(f, ds->variants[s->variant]);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		report_text_status(f, s);
		fputs(fmt->cell_close, f);
		fprintf(f, "%s%zu%s", fmt->num_open, count[k], fmt->cell_close);
		fprintf(f, "%s%u, %u%s%s", fmt->num_open, s->seq, s->round,
		    s->warmup ? " (warmup)" : "", fmt->cell_close);
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_code_open, f);
		last = report_text_last_line(s->err, &len);
		fmt->err_tail(f, last, len);
		fputs(fmt->cell_code_close, f);
		fputs(fmt->cell_close, f);
		fputs(fmt->row_close, f);
	}
	if (other > 0)
		fprintf(f, "%s%zu more in samples.csv%s", fmt->more_open,
		    other, fmt->more_close);
	fputs(fmt->table_close, f);
}

/* Appends to buf[len] what fits. */
static void __attribute__((format(printf, 3, 4)))
rt_cat(char *buf, size_t len, const char *fmt, ...)
{
	va_list	ap;
	size_t	at = strlen(buf);

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

void
report_text_stop(const struct analysis *a, const struct rep_host *rh,
    char *buf, size_t len)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c;
	double			 sec = (double)rh->spent_ns / 1e9;
	size_t			 i, more;

	buf[0] = '\0';
	if (!ds->auto_rounds || len == 0)
		return;
	rt_cat(buf, len, ": %u of at most %u rounds, ", rh->rounds_used,
	    ds->rounds);
	switch (rh->stop) {
	case SEQ_DECIDED:
		rt_cat(buf, len, "stopped: every primary comparison decided "
		    "(%zu of %zu)", rh->ndecided, rh->nprimary);
		break;
	case SEQ_MAX:
		rt_cat(buf, len, "stopped at max_rounds, %zu of %zu primary "
		    "comparisons decided", rh->ndecided, rh->nprimary);
		break;
	case SEQ_BUDGET:
		rt_cat(buf, len, "stopped: another block would pass the budget "
		    "of %us, %zu of %zu primary comparisons decided",
		    ds->budget_s, rh->ndecided, rh->nprimary);
		break;
	default:
		rt_cat(buf, len, "ended before a stop (failed or interrupted), "
		    "%zu of %zu primary comparisons decided", rh->ndecided,
		    rh->nprimary);
		break;
	}
	rt_cat(buf, len, ", %.0f s measuring, tested at p <= %.2g at its "
	    "last look", sec, rh->seq_alpha);
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		if (c->host != rh->host || !c->family ||
		    c->verdict != VERDICT_INCONCLUSIVE)
			continue;
		rt_cat(buf, len, "; undecided %s %s vs %s: ",
		    ds->benches[c->bench].name, ds->variants[c->variant],
		    ds->variants[ds->ref]);
		if (isfinite(c->mde))
			rt_cat(buf, len, "resolves %.1f%%", c->mde * 100);
		else
			rt_cat(buf, len, "cannot prove an effect yet");
		more = c->decide_rounds > rh->rounds_used ?
		    c->decide_rounds - rh->rounds_used : 0;
		if (c->decide_rounds > 0)
			rt_cat(buf, len, ", about %zu more rounds to decide "
			    "min_effect", more);
	}
}

double
report_scale_x(const struct report_scale *sc, double r)
{
	return (sc->x0 + (log(r) - log(sc->lo)) / (log(sc->hi) -
	    log(sc->lo)) * (sc->x1 - sc->x0));
}

void
report_scale_axis(FILE *f, const struct report_scale *sc, int top, double y)
{
	double	x = report_scale_x(sc, 1);

	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
	    "stroke=\"#57606a\" stroke-width=\"1.2\"/>\n", x, top, x, y);
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
	    "stroke=\"#8c959f\"/>\n", sc->x0, y, sc->x1, y);
}

void
report_scale_ticks(FILE *f, const struct report_scale *sc,
    const double *nice, long n, long one, double y)
{
	double	x, last;
	long	i, dir;

	for (dir = -1; dir <= 1; dir += 2) {
		last = dir < 0 ? -1000 : report_scale_x(sc, 1);
		for (i = dir < 0 ? one : one + 1; i >= 0 && i < n; i += dir) {
			if (nice[i] < sc->lo || nice[i] > sc->hi)
				continue;
			x = report_scale_x(sc, nice[i]);
			if (fabs(x - last) < 44)
				continue;
			last = x;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#8c959f\"/><text x=\"%.1f\" "
			    "y=\"%.1f\" text-anchor=\"middle\" class=\"dim\">"
			    "%g</text>\n", x, y, x, y + 5, x, y + 18, nice[i]);
		}
	}
}

/*
 * Writes s escaped for Markdown (see report-text.h): as a table cell's
 * text, and what would start a link, an image or a code span escaped too,
 * so that viewing the report fetches nothing and no line is spoofed.
 */
void
report_md_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|' || *s == '<' || *s == '[' || *s == ']' ||
		    *s == '`' || *s == '\\') {
			fputc('\\', f);
			fputc(*s, f);
		} else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* Writes s escaped for HTML (see report-text.h). */
void
report_html_esc(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}
