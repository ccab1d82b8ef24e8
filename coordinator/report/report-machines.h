/*
 * The report's Machines section (coordinator/analysis/machines.h compares
 * the hosts): in report.md, in report.html and as summary.json's member.
 */
#ifndef COORDINATOR_REPORT_MACHINES_H
#define COORDINATOR_REPORT_MACHINES_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/report/report-text.h"

/* The section in each report: Markdown, HTML, and summary.json's member. */
int	report_machines_md(FILE *f, const struct analysis *a,
	    const struct report_fmt *fmt);
int	report_machines_html(FILE *f, const struct analysis *a,
	    const struct report_fmt *fmt);
int	report_machines_json(FILE *f, const struct analysis *a);

/*
 * A note naming the hosts that share a machine (nothing when none do):
 * in fmt (report.md), on the terminal (plain), and in answer.md
 * (report_md_shared, report-md.c: Markdown).
 */
void	report_machines_shared(FILE *f, const struct analysis *a,
	    const struct report_fmt *fmt);
void	report_machines_shared_text(FILE *f, const struct analysis *a);
void	report_md_shared(FILE *f, const struct analysis *a);

#endif
