/*
 * What the suite and inventory parsers share: reading an INI file into
 * memory, feeding it to inih line by line (inih passes no line numbers,
 * truncates section names and never reports a section without keys, so
 * [section] lines are handled here), errors that name the file and line,
 * and checks of names, CPU lists and decimal numbers.
 */
#ifndef COORDINATOR_INI_H
#define COORDINATOR_INI_H

#include <ini.h>
#include <stddef.h>

/* An INI file being parsed; set up by ini_init(). */
struct ini_src {
	const char	*path;		/* as given, for messages */
	char		*text;		/* the whole file; the caller frees */
	size_t		 len;
	size_t		 off;		/* next unread byte of text */
	int		 line;		/* the line inih is working on */
	int		 failed;
	char		*cause;		/* the first error; the caller frees */

	/* Finishes the current section, before the next and at the end. */
	void		(*end)(void *arg);
	/* Starts section [NAME], name[0..len) trimmed; reports errors. */
	void		(*section)(void *arg, const char *name, size_t len);
	void		*arg;		/* for end and section */
};

/* Sets src up to read path, with the callbacks for sections. */
void	 ini_init(struct ini_src *src, const char *path,
	    void (*end)(void *), void (*section)(void *, const char *, size_t),
	    void *arg);

/* Formats into a new string, or returns NULL when out of memory. */
char	*ini_fmt(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/*
 * Records the first error as "PATH:LINE: message", or "PATH: message" for
 * line 0, and sets failed. Out of memory leaves cause NULL.
 */
void	 ini_error(struct ini_src *src, int line, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * Reads the whole file, at most max bytes, into src->text. Returns 0, 1
 * when it does not exist and missing_ok is set (nothing reported), or -1
 * with the error reported.
 */
int	 ini_read(struct ini_src *src, size_t max, int missing_ok);

/*
 * The inih reader (stream is the struct ini_src): hands over the next line
 * without leading blanks and passes [section] lines to src->end and
 * src->section. Returns NULL at the end or after an error, which stops
 * inih.
 */
char	*ini_read_line(char *str, int num, void *stream);

/*
 * Feeds src->text to inih with handler and user, then ends the last
 * section. Returns 0, or -1 with the error reported.
 */
int	 ini_run(struct ini_src *src, ini_handler handler, void *user);

/*
 * Returns the first error for the caller to free: "out of memory" if it
 * could not be formatted, or NULL if even that fails.
 */
char	*ini_cause(struct ini_src *src);

/*
 * Looks key up in the NULL-terminated keys of the section labelled label
 * (keys NULL: outside any section) and records its line in seen[index].
 * Returns the index, or -1 with an unknown or duplicate key reported.
 */
int	 ini_key(struct ini_src *src, const char *label,
	    const char *const *keys, int *seen, const char *key);

/*
 * Returns 1 if s[0..len) is 1 to size - 1 of A-Z a-z 0-9 _ . -, not
 * starting with '-' or '.' (the rule of proto/ident.h).
 */
int	 ini_name_ok(const char *s, size_t len, size_t size);

/*
 * Returns 1 if v is a CPU list: numbers and ranges LO-HI joined by commas.
 * With max >= 0 every number has at most as many digits as max, LO <= HI
 * and HI <= max; with max < 0 only the form is checked.
 */
int	 ini_cpus_ok(const char *v, int max);

/*
 * Parses a number >= 0 written as digits with an optional fraction (no
 * sign, exponent or locale), at most idig_max digits before the point,
 * fdig_max after it and 15 significant, so the value is exact before one
 * correctly rounded division. Returns 0 or -1.
 */
int	 ini_decimal(const char *v, int idig_max, int fdig_max, double *out);

#endif
