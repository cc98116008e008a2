/* Times in postern-audit: microseconds since the epoch, shown in UTC. */
#ifndef POSTERN_AUDIT_TIMEFMT_H
#define POSTERN_AUDIT_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "errmsg.h"

/*
 * ISO 8601 "YYYY-MM-DD[(T| )hh:mm[:ss[.frac]]][Z|+hh:mm|-hh:mm]" at the start
 * of s. Without a zone the time is local (TZ). A date alone is its first
 * second, or its last one when end_of_day is set (so --until DAY includes
 * DAY). Returns the number of bytes used, or 0 when s does not start with
 * such a time.
 */
size_t time_parse_iso(const char *s, size_t len, bool end_of_day, int64_t *us);

/*
 * What journalctl users type for --since/--until, besides ISO 8601:
 * "now", "today", "yesterday", "tomorrow" (local midnight; with end_of_day
 * the last microsecond of that day, as for a date alone), and "-N<unit>"
 * for N units before now, unit one of s, min, h, d, w (also m for
 * minutes). The whole string must be one of these; returns false
 * otherwise.
 */
bool time_parse_relative(const char *s, time_t now, bool end_of_day, int64_t *us);

/*
 * The year a traditional syslog time ("Dec  3 06:34:25", local, no year)
 * belongs to: year when fixed, otherwise the year of now, or the one
 * before when that would put the line more than a day in the future (a
 * December log read in January).
 */
struct year_rule {
	int year;
	bool fixed;
	time_t now;
};

/* "Mmm dd hh:mm:ss" at s (exactly 15 bytes); false when it is not one. */
bool time_parse_traditional(const char *s, const struct year_rule *rule, int64_t *us);

#define TIME_TEXT_MAX 32
/* "2026-12-03T06:34:25Z" */
void time_format_utc(int64_t us, char out[TIME_TEXT_MAX]);

#endif
