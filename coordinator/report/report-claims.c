/*
 * The claims in each report (report-claims.h): their verdicts as
 * coordinator/analysis/claims.c decided them, in a table, in summary.json,
 * in answer.md and on the terminal.
 */
#include <math.h>
#include <stdio.h>

#include "coordinator/analysis/claims.h"
#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-claims.h"
#include "coordinator/report/report-text.h"
#include "coordinator/report/report.h"

/* Writes one table row of the claims table. */
static void
rc_row(FILE *f, const struct report_fmt *fmt, const char *claim,
    const char *expect, const char *where, const char *bench,
    enum claim_verdict v, const struct claim_row *r)
{
	char			 ratio[160];

	claims_ratio_text(r, ratio, sizeof ratio);
	fputs(fmt->row_open, f);
	fputs(fmt->cell_open, f);
	if (claim[0] != '\0') {
		fputs(fmt->cell_code_open, f);
		fmt->text(f, claim);
		fputs(fmt->cell_code_close, f);
	}
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, expect);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, where);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fmt->text(f, bench);
	fputs(fmt->cell_close, f);
	fputs(fmt->cell_open, f);
	fputs(fmt->bold_open, f);
	fputs(claims_verdict_name(v), f);
	fputs(fmt->bold_close, f);
	fputs(fmt->cell_close, f);
	fputs(fmt->num_open, f);
	fmt->text(f, ratio);
	fputs(fmt->cell_close, f);
	fputs(fmt->row_close, f);
}

void
report_claims_table(FILE *f, const struct report_fmt *fmt,
    const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	const struct claim_row	*r;
	char			 expect[64], what[160], where[512], bench[256];
	size_t			 i, k;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs(fmt->note_open, f);
		fmt->prose(f, "The suite's claims could not be read: ");
		fmt->text(f, cs->error);
		fputs(fmt->note_close, f);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fputs(fmt->para_open, f);
	fputs(fmt->bold_open, f);
	fmt->prose(f, "Claims");
	fputs(fmt->bold_close, f);
	fprintf(f, ": each decided from its variant's primary comparisons "
	    "with %s, whose intervals are at the run's family level (%zu "
	    "test%s, 5%% family-wise", ds->variants[ds->ref], a->family_size,
	    a->family_size == 1 ? "" : "s");
	if (cs->nextra > 0)
		fprintf(f, "; %zu of them the comparisons of claims against "
		    "their own reference", cs->nextra);
	fprintf(f, "): CONFIRMED where every interval lies on the claimed "
	    "side, REFUTED where one lies wholly on the other side, else "
	    "UNDECIDED.");
	fputs(fmt->para_close, f);
	fputs(fmt->table_open, f);
	fputs(fmt->head_open, f);
	{
		static const char *const hd[] = { "claim", "expect", "where",
		    "decided by", "verdict", "ratio [interval]" };

		for (k = 0; k < sizeof hd / sizeof hd[0]; k++) {
			fputs(fmt->th_open, f);
			fputs(hd[k], f);
			fputs(fmt->th_close, f);
		}
	}
	fputs(fmt->head_close, f);
	if (fmt->rule_open != NULL) {
		fputs(fmt->rule_open, f);
		for (k = 0; k < 6; k++)
			fputs(k == 5 ? fmt->rule_right : fmt->rule_left, f);
		fputs(fmt->rule_close, f);
	}
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			snprintf(what, sizeof what, "%s %s vs %s", c->variant,
			    expect, claims_ref_name(ds, c));
			rc_row(f, fmt, c->name, what, "every host",
			    claims_decider_text(a, sum->decider, bench,
			    sizeof bench, 1), sum->verdict, sum->decider);
			continue;
		}
		if (sum->host == (size_t)-1) {
			snprintf(where, sizeof where, "%s",
			    a->groups[sum->group].label);
			rc_row(f, fmt, "", "", where,
			    claims_decider_text(a, sum->decider, bench,
			    sizeof bench, 1), sum->verdict, sum->decider);
			continue;
		}
		snprintf(where, sizeof where, "host %s",
		    ds->hosts[a->hosts[sum->host].host].name);
		rc_row(f, fmt, "", "", where, claims_decider_text(a,
		    sum->decider, bench, sizeof bench, 0), sum->verdict,
		    sum->decider);
		/* Several benchmarks: each one's row under its host. */
		if (sum->nrows < 2)
			continue;
		for (k = 0; k < cs->nrows; k++) {
			r = &cs->rows[k];
			if (r->claim != sum->claim || r->host != sum->host)
				continue;
			snprintf(where, sizeof where, "host %s, bench",
			    ds->hosts[a->hosts[r->host].host].name);
			rc_row(f, fmt, "", "", where,
			    ds->benches[r->bench].name, r->verdict, r);
		}
	}
	fputs(fmt->table_close, f);
}

/* Writes a row's deciding comparison as JSON members. */
static void
rc_json_row(FILE *f, const struct analysis *a, const struct claim_row *r)
{
	const struct dataset	*ds = a->ds;
	const struct rep_cmp	*c = r != NULL ? r->cmp : NULL;

	if (r == NULL) {
		fputs(", \"decided_by\": null", f);
		return;
	}
	fputs(", \"decided_by\": {\"host\": ", f);
	json_str(f, ds->hosts[a->hosts[r->host].host].name);
	fputs(", \"bench\": ", f);
	json_str(f, ds->benches[r->bench].name);
	fputs(", \"metric\": ", f);
	json_str(f, ds->benches[r->bench].metrics[0]);
	fputs(", \"ratio\": ", f);
	json_num(f, c != NULL ? c->ratio : NAN);
	fputs(", \"lo\": ", f);
	json_num(f, c != NULL ? c->lo : NAN);
	fputs(", \"hi\": ", f);
	json_num(f, c != NULL ? c->hi : NAN);
	fputs(", \"level\": ", f);
	json_num(f, c != NULL ? c->level : NAN);
	fputs(", \"comparison\": ", f);
	json_str(f, c != NULL ? stats_verdict_name(c->verdict) : "none");
	fputs("}", f);
}

void
report_claims_json(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	const struct claim_row	*r;
	char			 expect[64];
	size_t			 i, j, k;
	int			 open_g = 0, open_h = 0;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs(",\n  \"claims_error\": ", f);
		json_str(f, cs->error);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fputs(",\n  \"claims\": [", f);
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		if (sum->group == (size_t)-1) {
			if (open_h)
				fputs("]}", f);
			if (open_g)
				fputs("]}]},", f);
			open_g = open_h = 0;
			claims_expect_text(c, expect, sizeof expect);
			fputs("\n    {\"name\": ", f);
			json_str(f, c->name);
			fputs(", \"variant\": ", f);
			json_str(f, c->variant);
			fputs(", \"reference\": ", f);
			json_str(f, claims_ref_name(ds, c));
			fputs(", \"expect\": ", f);
			json_str(f, expect);
			fputs(", \"benchmarks\": ", f);
			if (c->nbenches == 0)
				json_str(f, "all");
			else {
				fputc('[', f);
				for (j = 0; j < c->nbenches; j++) {
					fputs(j ? ", " : "", f);
					json_str(f, c->benches[j]);
				}
				fputc(']', f);
			}
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(sum->verdict));
			rc_json_row(f, a, sum->decider);
			fputs(", \"groups\": [", f);
			continue;
		}
		if (sum->host == (size_t)-1) {
			if (open_h)
				fputs("]}", f);
			fputs(open_g ? "]}, {" : "{", f);
			open_g = 1;
			open_h = 0;
			fputs("\"group\": ", f);
			json_str(f, a->groups[sum->group].label);
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(sum->verdict));
			rc_json_row(f, a, sum->decider);
			fputs(", \"hosts\": [", f);
			continue;
		}
		fputs(open_h ? "]}, {" : "{", f);
		open_h = 1;
		fputs("\"host\": ", f);
		json_str(f, ds->hosts[a->hosts[sum->host].host].name);
		fputs(", \"verdict\": ", f);
		json_str(f, claims_verdict_name(sum->verdict));
		rc_json_row(f, a, sum->decider);
		fputs(", \"benches\": [", f);
		for (k = 0, j = 0; k < cs->nrows; k++) {
			r = &cs->rows[k];
			if (r->claim != sum->claim || r->host != sum->host)
				continue;
			fputs(j++ ? ", {\"bench\": " : "{\"bench\": ", f);
			json_str(f, ds->benches[r->bench].name);
			fputs(", \"verdict\": ", f);
			json_str(f, claims_verdict_name(r->verdict));
			rc_json_row(f, a, r);
			fputs("}", f);
		}
	}
	if (open_h)
		fputs("]}", f);
	if (open_g)
		fputs("]}", f);
	fputs("]}\n  ]", f);
}

void
report_claims_text(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	char			 expect[64], ratio[160], who[256];
	size_t			 i;

	if (cs == NULL)
		return;
	if (cs->error != NULL) {
		fputs("claims: could not be read: ", f);
		tty_write(f, cs->error);
		fputc('\n', f);
		return;
	}
	if (cs->suite == NULL || cs->suite->nclaims == 0)
		return;
	fprintf(f, "claims (each from its comparisons' intervals at the "
	    "run's family level, 5%% family-wise):\n");
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		c = &cs->suite->claims[sum->claim];
		claims_ratio_text(sum->decider, ratio, sizeof ratio);
		claims_decider_text(a, sum->decider, who, sizeof who, 1);
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			fputs("  ", f);
			tty_write(f, c->name);
			fputs(": ", f);
			tty_write(f, c->variant);
			fprintf(f, " %s vs ", expect);
			tty_write(f, claims_ref_name(ds, c));
			fprintf(f, ": %s\n", claims_verdict_name(sum->verdict));
		} else if (sum->host == (size_t)-1) {
			fputs("    ", f);
			tty_write(f, a->groups[sum->group].label);
			fprintf(f, ": %s  ", claims_verdict_name(
			    sum->verdict));
			tty_write(f, who);
			fprintf(f, "  %s\n", ratio);
		} else {
			fputs("      ", f);
			tty_write(f, who);
			fprintf(f, "  %s  %s\n", claims_verdict_name(
			    sum->verdict), ratio);
		}
	}
}

void
report_claims_answer_md(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct claims	*cs = a->claims;
	const struct claim_sum	*sum;
	const struct suite_claim *c;
	char			 expect[64], ratio[160], who[256];
	size_t			 i;

	if (cs == NULL || cs->error != NULL || cs->suite == NULL ||
	    cs->suite->nclaims == 0)
		return;
	for (i = 0; i < cs->nsums; i++) {
		sum = &cs->sums[i];
		if (sum->host != (size_t)-1)
			continue;
		c = &cs->suite->claims[sum->claim];
		claims_ratio_text(sum->decider, ratio, sizeof ratio);
		claims_decider_text(a, sum->decider, who, sizeof who, 1);
		if (sum->group == (size_t)-1) {
			claims_expect_text(c, expect, sizeof expect);
			fprintf(f, "%s**Claim `%s`** (%s %s vs %s): **%s**\n",
			    i > 0 ? "\n" : "", c->name, c->variant, expect,
			    claims_ref_name(ds, c),
			    claims_verdict_name(sum->verdict));
			continue;
		}
		fputs("- ", f);
		report_md_text(f, a->groups[sum->group].label);
		fprintf(f, ": %s (`%s`, ", claims_verdict_name(sum->verdict),
		    who);
		report_md_text(f, ratio);
		fputs(")\n", f);
	}
	fputc('\n', f);
}

