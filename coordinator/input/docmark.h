/*
 * Marks in Markdown (docs/evidence.md, "Numbers in documents"): a figure
 * taken from a run is written <!-- orch RUN QUERY -->VALUE<!-- /orch -->,
 * QUERY being key=value words; a block with table= holds a whole table.
 * The document is anyone's: every length is bounded, and each malformed
 * mark is an error naming the file and the line.
 */
#ifndef COORDINATOR_DOCMARK_H
#define COORDINATOR_DOCMARK_H

#include <stddef.h>

#define DOCMARK_MAX_FILE	(8u << 20)	/* bytes of a document */
#define DOCMARK_MAX_OPEN	1024	/* bytes of a mark's opening */
#define DOCMARK_MAX_VALUE	1024	/* bytes of a figure's VALUE */
#define DOCMARK_MAX_TABLE	(1u << 20)	/* bytes of a table's VALUE */
#define DOCMARK_MAX_WORDS	12	/* words of a mark: RUN and its keys */
#define DOCMARK_MAX_MARKS	4096	/* marks in a document */

#define DOCMARK_CLOSE		"<!-- /orch -->"

/* The keys a mark may give, each at most once. */
enum docmark_key {
	DM_HOST,
	DM_BENCH,
	DM_VARIANT,
	DM_METRIC,
	DM_FIELD,
	DM_ARCH,
	DM_GROUP,
	DM_TABLE,
	DM_NKEYS
};

struct docmark {
	size_t	 line;			/* of its opening, from 1 */
	size_t	 val_off, val_len;	/* its VALUE in the text */
	char	*run;			/* RUN: a directory or a baseline */
	char	*key[DM_NKEYS];		/* NULL: not given */
};

/* A document and its marks; free with docmark_free. */
struct docmarks {
	char		*text;		/* the whole file, NUL-terminated */
	size_t		 len;
	size_t		 nmarks;
	struct docmark	*marks;		/* in the text's order */
};

/* Returns the name of key k ("host", ...). */
const char *docmark_key_name(enum docmark_key k);

/*
 * Finds the marks of text (len bytes, NUL-terminated) from document path.
 * Lines in fenced code blocks (``` or ~~~) and code spans (`...` on one
 * line) are text, never marks. Returns
 * 0, or -1 with *cause set (caller frees) to "PATH:LINE: why" for the
 * first malformed mark: an opening not closed on its line, a word that is
 * no key=value, an unknown or repeated key, neither or both of field= and
 * table=, a mark inside a mark, a mark never closed, a close with no
 * mark, a figure that spans lines, any bound above passed.
 */
int	docmark_parse(const char *path, const char *text, size_t len,
	    struct docmarks **out, char **cause);

/* Reads the document at path (at most DOCMARK_MAX_FILE) and parses it. */
int	docmark_load(const char *path, struct docmarks **out, char **cause);

/* Frees a document's marks; NULL is ok. */
void	docmark_free(struct docmarks *dm);

#endif
