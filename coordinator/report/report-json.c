/* summary.json, as docs/report.md specifies it (extra fields only added). */
#include <math.h>
#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/seq.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-claims.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/report/report-sweep.h"
#include "coordinator/report/report.h"

/* How a variant's files relate to the reference's (REP_FILES_*). */
static const char *const json_files[] = { "different", "same", "identical" };

/*
 * Writes the groups, geometric means, matrix rows and answers (additions).
 * Long: four short sections of summary.json in the order the document
 * gives them.
 */
static void
json_across(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_geo	*geo;
	const struct rep_row	*row;
	const struct ds_host	*h;
	size_t			 i, j;

	fputs("  \"groups\": [", f);
	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		h = &ds->hosts[a->hosts[g->from].host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"label\": ", f);
		json_str(f, g->label);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fputs(", \"hosts\": [", f);
		for (j = g->from; j < g->to; j++) {
			if (j > g->from)
				fputs(", ", f);
			json_str(f, ds->hosts[a->hosts[j].host].name);
		}
		fputs("]}", f);
	}
	fputs(a->ngroups ? "\n  ],\n" : "],\n", f);

	fputs("  \"geomeans\": [", f);
	for (i = 0; i < a->ngeos; i++) {
		geo = &a->geos[i];
		h = &ds->hosts[a->hosts[a->groups[geo->group].from].host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"group\": ", f);
		json_str(f, a->groups[geo->group].label);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[geo->variant]);
		fputs(", \"reference\": ", f);
		json_str(f, ds->variants[ds->ref]);
		fprintf(f, ", \"n\": %zu, \"invalid\": %zu", geo->nused,
		    geo->ninvalid);
		fputs(", \"geomean\": ", f);
		json_num(f, geo->est);
		fputs(", \"ci_low\": ", f);
		json_num(f, geo->lo);
		fputs(", \"ci_high\": ", f);
		json_num(f, geo->hi);
		fprintf(f, ", \"verdict\": \"%s\", \"inverted\": %s, "
		    "\"aa\": %s", stats_verdict_name(geo->verdict),
		    a->inverted ? "true" : "false", geo->aa ? "true" : "false");
		fputs(", \"level\": ", f);
		json_num(f, geo->level);
		fputs(", \"widened\": ", f);
		json_num(f, geo->widen);
		fputs("}", f);
	}
	fputs(a->ngeos ? "\n  ],\n" : "],\n", f);

	fputs("  \"matrix\": [", f);
	for (i = 0; i < a->nrows; i++) {
		row = &a->rows[i];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"bench\": ", f);
		json_str(f, ds->benches[row->bench].name);
		fputs(", \"metric\": ", f);
		json_str(f, ds->benches[row->bench].metrics[0]);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[row->variant]);
		fprintf(f, ", \"differs\": %s, \"agreement\": ",
		    row->differs ? "true" : "false");
		json_str(f, row->agreement);
		fputs("}", f);
	}
	fputs(a->nrows ? "\n  ],\n" : "],\n", f);

	fputs("  \"answers\": [", f);
	for (i = 0; i < a->nanswers; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"variant\": ", f);
		json_str(f, ds->variants[a->answers[i].variant]);
		fputs(", \"reference\": ", f);
		json_str(f, ds->variants[ds->ref]);
		fputs(", \"headline\": ", f);
		json_str(f, a->answers[i].headline);
		fputs(", \"detail\": ", f);
		json_str(f, a->answers[i].detail);
		fputs("}", f);
	}
	fputs(a->nanswers ? "\n  ]\n" : "]\n", f);
}

/* The run's own fields: versions, suite, seed, reference, times. */
static void
json_run(FILE *f, const struct dataset *ds)
{
	fputs("{\n  \"orch_version\": ", f);
	json_str(f, ds->orch_version);
	fputs(",\n  \"run_id\": ", f);
	json_str(f, ds->run_id);
	fputs(",\n  \"suite\": ", f);
	json_str(f, ds->suite_name);
	fprintf(f, ",\n  \"seed\": %llu", (unsigned long long)ds->seed);
	fputs(",\n  \"reference\": ", f);
	json_str(f, ds->variants[ds->ref]);
	fputs(",\n  \"min_effect\": ", f);
	json_num(f, ds->min_effect);
	fprintf(f, ",\n  \"rounds\": %u", ds->rounds);
	if (ds->auto_rounds)
		fprintf(f, ",\n  \"auto\": {\"min_rounds\": %u, "
		    "\"max_rounds\": %u, \"budget_s\": %u}", ds->min_rounds,
		    ds->rounds, ds->budget_s);
	fputs(",\n  \"started\": ", f);
	json_str(f, ds->started);
	fputs(",\n  \"ended\": ", f);
	json_str(f, ds->ended);
	fputs(",\n  \"complete\": ", f);
	fputs(ds->ended[0] != '\0' && !ds->truncated ? "true" : "false", f);
	/* Only with labels: a run without them renders as it always did. */
	for (size_t i = 0; i < ds->nlabels; i++) {
		fputs(i == 0 ? ",\n  \"labels\": {" : ", ", f);
		json_str(f, ds->label_keys[i]);
		fputs(": ", f);
		json_str(f, ds->label_values[i]);
		if (i + 1 == ds->nlabels)
			fputc('}', f);
	}
}

/*
 * The host's own programs it ran (host:NAME): per variant or hook, the
 * path its agent found, the SHA-256 and the --version line.
 */
static void
json_host_progs(FILE *f, const struct dataset *ds, size_t host)
{
	const struct ds_file	*df;
	size_t			 i, n = 0;

	fputs(", \"host_programs\": [", f);
	for (i = 0; i < ds->nfiles; i++) {
		df = &ds->files[i];
		if (df->host != host || df->host_prog == NULL)
			continue;
		fputs(n++ ? ", {\"variant\": " : "{\"variant\": ", f);
		json_str(f, df->variant);
		fputs(", \"role\": ", f);
		json_str(f, df->role);
		fputs(", \"program\": ", f);
		json_str(f, df->host_prog);
		fputs(", \"path\": ", f);
		json_str(f, df->path);
		fputs(", \"sha256\": ", f);
		json_str(f, df->sha);
		fputs(", \"version\": ", f);
		json_str(f, df->version);
		fputs("}", f);
	}
	fputs("]", f);
}

/* A Slurm host's job: the cluster, job, component and node behind it. */
static void
json_host_slurm(FILE *f, const struct ds_host *h)
{
	const struct ds_slurm	*s = h->slurm;

	if (s == NULL)
		return;
	fputs(", \"slurm\": {\"cluster\": ", f);
	json_str(f, s->cluster);
	fputs(", \"job_id\": ", f);
	json_str(f, s->job_id);
	fprintf(f, ", \"component\": %u, \"node\": ", s->component);
	json_str(f, s->node);
	fputs(", \"partition\": ", f);
	json_str(f, s->partition);
	fputs("}", f);
}

/* One host of the analysis (a->hosts[i]): its facts, outcome and counts. */
static void
json_host(FILE *f, const struct analysis *a, size_t i)
{
	const struct rep_host	*rh = &a->hosts[i];
	const struct ds_host	*h = &a->ds->hosts[rh->host];

	fputs("\"name\": ", f);
	json_str(f, h->name);
	fputs(", \"os\": ", f);
	json_str(f, h->facts.os);
	fputs(", \"arch\": ", f);
	json_str(f, h->facts.arch);
	fputs(", \"cpu_model\": ", f);
	json_str(f, h->facts.cpu_model);
	fprintf(f, ", \"cores\": %u", h->facts.cores);
	fprintf(f, ", \"status\": \"%s\"",
	    h->failed || !h->ended ? "failed" : "ok");
	fputs(", \"error\": ", f);
	json_str(f, h->failed || h->ended ? h->error :
	    "the record ends before this host finished");
	fputs(", \"agent_version\": ", f);
	json_str(f, h->agent_version);
	fprintf(f, ", \"samples\": %zu, \"failed_samples\": %zu, "
	    "\"retries\": %zu", rh->samples, rh->failed, rh->retries);
	fprintf(f, ", \"pushed_files\": %llu, \"pushed_bytes\": %llu",
	    (unsigned long long)h->pushed_files,
	    (unsigned long long)h->pushed_bytes);
	fputs(", \"load_median\": ", f);
	json_num(f, rh->load_med);
	fputs(", \"load_max\": ", f);
	json_num(f, rh->load_max);
	/* The plan's load gate per core: 0 off, null an older record. */
	fputs(", \"load_gate\": ", f);
	json_num(f, h->has_plan ? h->max_load : NAN);
	fputs(", \"floor_median_ns\": ", f);
	json_num(f, rh->hyg.floor.n > 0 ? rh->hyg.floor.median : NAN);
	fprintf(f, ", \"floor_runs\": %zu, \"floor_subtracted\": %s",
	    rh->hyg.floor.n, rh->floor_sub > 0 ? "true" : "false");
	json_host_progs(f, a->ds, rh->host);
	json_host_slurm(f, h);
	fputs(", \"mde_pct\": ", f);
	json_num(f, rh->mde * 100);
	fputs(", \"serial_r\": ", f);
	json_num(f, rh->r1);
	fputs(", \"widened\": ", f);
	json_num(f, rh->widen);
	/* rounds = auto: how the host stopped (docs/output.md). */
	if (a->ds->auto_rounds) {
		fprintf(f, ", \"rounds_used\": %u, \"stop\": ",
		    rh->rounds_used);
		json_str(f, seq_stop_name((enum seq_stop)rh->stop));
		fprintf(f, ", \"decided\": %zu, \"primary\": %zu, "
		    "\"seconds\": ", rh->ndecided, rh->nprimary);
		json_num(f, (double)rh->spent_ns / 1e9);
		fputs(", \"look_alpha\": ", f);
		json_num(f, rh->seq_alpha);
	}
}

/* The fields that name a result's or comparison's cell. */
static void
json_cell(FILE *f, const struct dataset *ds, size_t host, size_t bench,
    size_t metric, size_t variant)
{
	fputs("\"host\": ", f);
	json_str(f, ds->hosts[host].name);
	fputs(", \"arch\": ", f);
	json_str(f, ds->hosts[host].facts.arch);
	fputs(", \"bench\": ", f);
	json_str(f, ds->benches[bench].name);
	fputs(", \"metric\": ", f);
	json_str(f, ds->benches[bench].metrics[metric]);
	fputs(", \"variant\": ", f);
	json_str(f, ds->variants[variant]);
}

/* One result: its cell and the summary of its good runs. */
static void
json_result(FILE *f, const struct dataset *ds, const struct rep_result *res)
{
	json_cell(f, ds, res->host, res->bench, res->metric, res->variant);
	fprintf(f, ", \"n\": %zu", res->sum.n);
	fputs(", \"median\": ", f);
	json_num(f, res->sum.n ? res->sum.median : NAN);
	fputs(", \"min\": ", f);
	json_num(f, res->sum.n ? res->sum.min : NAN);
	fputs(", \"max\": ", f);
	json_num(f, res->sum.n ? res->sum.max : NAN);
	fprintf(f, ", \"failed\": %zu", res->failed);
	fputs(", \"iqr_pct\": ", f);
	json_num(f, res->sum.n ? res->sum.iqr_pct : NAN);
	fputs(", \"cv\": ", f);
	json_num(f, res->sum.n ? res->sum.cv : NAN);
	fprintf(f, ", \"retried\": %zu", res->retried);
	fprintf(f, ", \"runs_retried\": %zu, \"retry_flag\": %s",
	    res->runs_retried, res->retry_flag ? "true" : "false");
}

/*
 * A comparison's test (docs/statistics.md): its level, family, serial
 * correlation and the effect it could detect.
 */
static void
json_cmp_method(FILE *f, const struct rep_cmp *c)
{
	fprintf(f, ", \"family\": %s", c->family ? "true" : "false");
	fputs(", \"level\": ", f);
	json_num(f, c->level);
	fputs(", \"alpha\": ", f);
	json_num(f, c->alpha);
	fputs(", \"p_adjusted\": ", f);
	json_num(f, c->p_adj);
	fputs(", \"serial_r\": ", f);
	json_num(f, c->r1);
	fputs(", \"widened\": ", f);
	json_num(f, c->widen);
	fputs(", \"mde_pct\": ", f);
	json_num(f, c->mde * 100);
	fputs(", \"rounds_to_decide\": ", f);
	if (c->verdict == VERDICT_INCONCLUSIVE && c->decide_rounds > 0)
		fprintf(f, "%zu", c->decide_rounds);
	else
		fputs("null", f);
}

/* The error control of the primary verdicts (docs/statistics.md). */
static void
json_family(FILE *f, const struct analysis *a)
{
	fprintf(f, ",\n  \"method\": \"Hodges-Lehmann estimate, Wilcoxon "
	    "signed-rank test and its inverted interval\",\n  \"family\": "
	    "{\"control\": \"FWER\", \"adjustment\": \"Bonferroni\", "
	    "\"alpha\": ");
	json_num(f, STATS_ALPHA);
	fprintf(f, ", \"size\": %zu, \"test_alpha\": ", a->family_size);
	json_num(f, a->family_alpha);
	fputs(", \"level\": ", f);
	json_num(f, 1 - a->family_alpha);
	fputs("}", f);
}

/* One comparison: its cell, ratio, interval, verdict and why. */
static void
json_cmp(FILE *f, const struct dataset *ds, const struct rep_cmp *c)
{
	json_cell(f, ds, c->host, c->bench, c->metric, c->variant);
	fputs(", \"reference\": ", f);
	json_str(f, ds->variants[ds->ref]);
	fputs(", \"ratio\": ", f);
	json_num(f, c->ratio);
	fputs(", \"ci_low\": ", f);
	json_num(f, c->lo);
	fputs(", \"ci_high\": ", f);
	json_num(f, c->hi);
	fprintf(f, ", \"verdict\": \"%s\"", stats_verdict_name(c->verdict));
	fprintf(f, ", \"n\": %zu", c->npairs);
	fputs(", \"p_value\": ", f);
	json_num(f, c->p);
	fputs(", \"primary\": ", f);
	fputs(c->metric == 0 ? "true" : "false", f);
	fputs(", \"reason\": ", f);
	json_str(f, c->reason);
	fprintf(f, ", \"files\": \"%s\"", json_files[c->files]);
	json_cmp_method(f, c);
}

int
report_json(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	size_t			 i;

	json_run(f, ds);
	json_family(f, a);
	report_claims_json(f, a);
	fputs(",\n  \"hosts\": [", f);
	for (i = 0; i < a->nhosts; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_host(f, a, i);
		fputs("}", f);
	}
	fputs(a->nhosts ? "\n  ],\n" : "],\n", f);
	fputs("  \"results\": [", f);
	for (i = 0; i < a->nresults; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_result(f, ds, &a->results[i]);
		fputs("}", f);
	}
	fputs(a->nresults ? "\n  ],\n" : "],\n", f);
	fputs("  \"comparisons\": [", f);
	for (i = 0; i < a->ncmps; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_cmp(f, ds, &a->cmps[i]);
		fputs("}", f);
	}
	fputs(a->ncmps ? "\n  ],\n" : "],\n", f);
	if (report_machines_json(f, a) != 0)
		return (-1);
	report_sweep_json(f, a);
	if (report_layout_json(f, a) != 0)
		return (-1);
	json_across(a, f);
	fputs("}\n", f);
	return (ferror(f) ? -1 : 0);
}
