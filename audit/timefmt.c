/* Times for postern-audit: parsing --since/--until and syslog stamps, printing
 * UTC; a stamp it cannot read is refused, never replaced by another time. */
#include "timefmt.h"

#include <stdio.h>
#include <string.h>

static bool digits_at(const char *s, size_t len, size_t pos, size_t n, int *v)
{
	size_t i;

	*v = 0;
	if (pos + n > len)
		return false;
	for (i = 0; i < n; i++) {
		if (s[pos + i] < '0' || s[pos + i] > '9')
			return false;
		*v = *v * 10 + (s[pos + i] - '0');
	}
	return true;
}

static int days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

static bool tm_is_valid(const struct tm *tm)
{
	return tm->tm_year >= 70 && tm->tm_year < 8000 && tm->tm_mon >= 0 &&
	       tm->tm_mon < 12 && tm->tm_mday >= 1 &&
	       tm->tm_mday <= days_in_month(tm->tm_year + 1900, tm->tm_mon + 1) &&
	       tm->tm_hour >= 0 && tm->tm_hour < 24 && tm->tm_min >= 0 &&
	       tm->tm_min < 60 && tm->tm_sec >= 0 && tm->tm_sec <= 60;
}

static int64_t local_to_us(struct tm *tm)
{
	time_t t;

	tm->tm_isdst = -1;
	t = mktime(tm);
	return (int64_t)t * 1000000;
}

/* "Z", "+hh:mm", "-hh:mm" or "+hhmm" at pos; sets offset seconds east. */
static size_t parse_zone(const char *s, size_t len, size_t pos, long *offset)
{
	int h, m;
	size_t n;

	if (pos < len && s[pos] == 'Z') {
		*offset = 0;
		return 1;
	}
	if (pos >= len || (s[pos] != '+' && s[pos] != '-') ||
	    !digits_at(s, len, pos + 1, 2, &h))
		return 0;
	n = 3;
	if (pos + n < len && s[pos + n] == ':')
		n++;
	if (!digits_at(s, len, pos + n, 2, &m) || h > 23 || m > 59)
		return 0;
	*offset = (h * 3600L + m * 60L) * (s[pos] == '-' ? -1 : 1);
	return n + 2;
}

static size_t parse_clock(const char *s, size_t len, size_t pos, struct tm *tm, long *frac_us)
{
	size_t start = pos;
	long scale = 100000;

	if (!digits_at(s, len, pos, 2, &tm->tm_hour) || pos + 2 >= len ||
	    s[pos + 2] != ':' || !digits_at(s, len, pos + 3, 2, &tm->tm_min))
		return 0;
	pos += 5;
	if (pos < len && s[pos] == ':') {
		if (!digits_at(s, len, pos + 1, 2, &tm->tm_sec))
			return 0;
		pos += 3;
		if (pos < len && s[pos] == '.') {
			pos++;
			if (pos >= len || s[pos] < '0' || s[pos] > '9')
				return 0;
			for (; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++) {
				*frac_us += (s[pos] - '0') * scale;
				scale /= 10;
			}
		}
	}
	return pos - start;
}

size_t time_parse_iso(const char *s, size_t len, bool end_of_day, int64_t *us)
{
	struct tm tm;
	long frac_us = 0, offset = 0;
	size_t pos = 10, n, zone;
	bool date_only = true;

	memset(&tm, 0, sizeof(tm));
	if (!digits_at(s, len, 0, 4, &tm.tm_year) || len < 10 || s[4] != '-' ||
	    !digits_at(s, len, 5, 2, &tm.tm_mon) || s[7] != '-' ||
	    !digits_at(s, len, 8, 2, &tm.tm_mday))
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if (pos + 1 < len && (s[pos] == 'T' || s[pos] == ' ') &&
	    (n = parse_clock(s, len, pos + 1, &tm, &frac_us)) > 0) {
		pos += 1 + n;
		date_only = false;
	}
	if (!tm_is_valid(&tm))
		return 0;
	if (date_only && end_of_day) {
		tm.tm_hour = 23;
		tm.tm_min = 59;
		tm.tm_sec = 59;
		frac_us = 999999;
	}
	zone = parse_zone(s, len, pos, &offset);
	if (zone == 0) {
		*us = local_to_us(&tm) + frac_us;
		return pos;
	}
	*us = ((int64_t)timegm(&tm) - offset) * 1000000 + frac_us;
	return pos + zone;
}

/* Local midnight days_ago days before now's day (negative: after). */
static int64_t local_midnight_us(time_t now, int days_ago, bool end_of_day)
{
	struct tm tm;

	localtime_r(&now, &tm);
	tm.tm_mday -= days_ago;
	tm.tm_hour = 0;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	if (end_of_day) {
		tm.tm_hour = 23;
		tm.tm_min = 59;
		tm.tm_sec = 59;
		return local_to_us(&tm) + 999999;
	}
	return local_to_us(&tm);
}

/* "-N<unit>": N units before now; false on anything else or an overflow. */
static bool parse_ago(const char *s, time_t now, int64_t *us)
{
	static const struct {
		const char *name;
		int64_t seconds;
	} units[] = {
		{ "s", 1 }, { "sec", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
		{ "d", 86400 }, { "w", 7 * 86400 },
	};
	int64_t n = 0;
	size_t i;

	if (*s++ != '-' || *s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (*s - '0');
		if (n > 100000000)
			return false;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s, units[i].name) == 0) {
			*us = ((int64_t)now - n * units[i].seconds) * 1000000;
			return true;
		}
	}
	return false;
}

bool time_parse_relative(const char *s, time_t now, bool end_of_day, int64_t *us)
{
	if (strcmp(s, "now") == 0) {
		*us = (int64_t)now * 1000000;
		return true;
	}
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0 || strcmp(s, "tomorrow") == 0) {
		*us = local_midnight_us(now, s[0] == 't' ? (s[2] == 'd' ? 0 : -1) : 1, end_of_day);
		return true;
	}
	return parse_ago(s, now, us);
}

static int month_index(const char *s)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int i;

	for (i = 0; i < 12; i++) {
		if (memcmp(s, months + 3 * i, 3) == 0)
			return i;
	}
	return -1;
}

bool time_parse_traditional(const char *s, const struct year_rule *rule, int64_t *us)
{
	struct tm tm, now_tm;
	int day;

	memset(&tm, 0, sizeof(tm));
	tm.tm_mon = month_index(s);
	if (tm.tm_mon < 0 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':')
		return false;
	if (s[4] == ' ' ? !digits_at(s, 15, 5, 1, &day) : !digits_at(s, 15, 4, 2, &day))
		return false;
	tm.tm_mday = day;
	if (!digits_at(s, 15, 7, 2, &tm.tm_hour) || !digits_at(s, 15, 10, 2, &tm.tm_min) ||
	    !digits_at(s, 15, 13, 2, &tm.tm_sec))
		return false;
	localtime_r(&rule->now, &now_tm);
	tm.tm_year = rule->fixed ? rule->year - 1900 : now_tm.tm_year;
	if (!tm_is_valid(&tm))
		return false;
	*us = local_to_us(&tm);
	if (!rule->fixed && *us > ((int64_t)rule->now + 86400) * 1000000) {
		tm.tm_year--;
		if (!tm_is_valid(&tm))
			return false;
		*us = local_to_us(&tm);
	}
	return true;
}

void time_format_utc(int64_t us, char out[TIME_TEXT_MAX])
{
	time_t t = (time_t)(us >= 0 ? us / 1000000 : (us - 999999) / 1000000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, TIME_TEXT_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, TIME_TEXT_MAX, "-");
}
