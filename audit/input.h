/* Reading the trail: files or standard input, line by line, into records. */
#ifndef POSTERN_AUDIT_INPUT_H
#define POSTERN_AUDIT_INPUT_H

#include <stdbool.h>

#include "query.h"
#include "trail.h"

enum input_format {
	INPUT_AUTO,      /* per file: journal JSON if its first line is '{...' */
	INPUT_SYSLOG,
	INPUT_JOURNAL,
};

struct input_options {
	enum input_format format;
	struct trail_rules rules;
	bool quiet;
};

struct input_stats {
	unsigned long records;      /* accepted, before filtering */
	unsigned long suspicious;
	unsigned long unverified;   /* accepted from syslog, where nobody vouches */
};

/*
 * Read every file ("-" or none: standard input), report suspicious lines on
 * stderr, keep the records q matches in set. Returns 0, -ENOMEM, or -EIO
 * after saying on stderr which file could not be read.
 */
int input_read_all(const struct input_options *in, const struct query *q,
		   char **files, int nfiles, struct record_set *set,
		   struct input_stats *stats);

#endif
