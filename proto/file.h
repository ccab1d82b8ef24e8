/*
 * The one way orch writes a file into place: a new temporary of mode 0600
 * beside it (never an existing name, never through a link), written,
 * synced, then renamed over the name, so a reader sees the old file or
 * the whole new one and a failure leaves nothing behind.
 */
#ifndef PROTO_FILE_H
#define PROTO_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/*
 * One file being written: file_out_write fills tmp and r, file_out_commit
 * renames it. A caller that writes several files writes them all, then
 * commits them all, so one failure leaves every old file whole.
 */
struct file_out {
	const char	 *dir;
	const char	 *name;
	int		(*fn)(const void *, FILE *);
	const void	 *arg;
	char		 *cause;		/* set when r is -1 */
	int		  r;
	char		  tmp[PATH_MAX];	/* "" until created */
};

/*
 * Creates a new file DIR/.NAME.XXXXXXXX.tmp of mode 0600 for writing, with
 * O_CREAT | O_EXCL | O_NOFOLLOW and a random name (its path in tmp), for
 * a rename into place. Returns the descriptor, or -1 (errno).
 */
int	file_create_tmp(const char *dir, const char *name, char *tmp,
	    size_t len);

/* Writes and syncs o's temporary through o->fn; sets o->r (0, or -1). */
void	file_out_write(struct file_out *o);

/* Renames o's written temporary into place; -1 with o->cause. */
int	file_out_commit(struct file_out *o);

/* Frees o's cause and removes the temporary it created, if any. */
void	file_out_discard(struct file_out *o);

/*
 * Writes DIR/NAME through fn(arg, f) as above. Returns 0, or -1 with
 * cause (nothing left behind).
 */
int	file_write(const char *dir, const char *name,
	    int (*fn)(const void *, FILE *), const void *arg, char **cause);

#endif
