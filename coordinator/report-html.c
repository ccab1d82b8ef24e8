/* report.html: placeholder. */
#include "coordinator/report.h"

int
report_html(const struct analysis *a, FILE *f)
{
	(void)a;
	fputs("<!doctype html>\n", f);
	return (0);
}
