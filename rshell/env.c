/*
 * Takes the three variables postern-shell needs and builds rrsync's environment
 * from nothing (env.h). It must never pass on what the client could set.
 */
#define _GNU_SOURCE
#include "env.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/*
 * glibc's list of variables it ignores in set-uid programs (unsecvars.h),
 * without TMPDIR, which pam_tmpdir sets legitimately and which nothing here
 * reads. In a normal program the loader and libc honour them before main(),
 * so the only useful answer to finding one is to refuse and say where it
 * came from.
 */
static const char *const unsafe_names[] = {
	"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN",
	"LOCPATH", "MALLOC_TRACE", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF",
	"RES_OPTIONS", "TZDIR",
};

static bool name_is(const char *var, const char *name)
{
	size_t n = strlen(name);

	return strncmp(var, name, n) == 0 && var[n] == '=';
}

bool env_find_unsafe(const char *const envp[], char *out, size_t outlen)
{
	size_t i;
	size_t j;

	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		bool hit = strncmp(envp[i], "LD_", 3) == 0;

		for (j = 0; !hit && j < sizeof(unsafe_names) / sizeof(unsafe_names[0]); j++)
			hit = name_is(envp[i], unsafe_names[j]);
		if (hit) {
			size_t n = strcspn(envp[i], "=");
			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, envp[i], n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

static const char *env_value(const char *const envp[], const char *name)
{
	size_t i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		if (name_is(envp[i], name))
			return envp[i] + strlen(name) + 1;
	}
	return NULL;
}

static bool span_of(const char **p, const char *set, size_t min, size_t max)
{
	size_t n = strspn(*p, set);

	*p += n;
	return n >= min && n <= max;
}

bool lang_name_valid(const char *lang)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *p = lang;

	if (strcmp(lang, "C") == 0 || strcmp(lang, "POSIX") == 0)
		return true;
	if (strncmp(lang, "C.", 2) == 0)
		p = lang + 1;
	else if (!span_of(&p, alpha, 2, 8))
		return false;
	if (*p == '_' && (p++, !span_of(&p, alnum, 2, 8)))
		return false;
	if (*p == '.' && (p++, !span_of(&p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", 1, 16)))
		return false;
	if (*p == '@' && (p++, !span_of(&p, alnum, 1, 16)))
		return false;
	return *p == '\0';
}

/*
 * Installed, and its codeset UTF-8. rrsync (Python) decodes
 * SSH_ORIGINAL_COMMAND in LANG's codeset and then splits it on Unicode
 * white space: in ISO-8859-1 the bytes c5 a0 of U+0160 decode to "Å" and
 * U+00A0, so one word we validated would reach rsync as two. C and POSIX
 * are ASCII, and Python runs in UTF-8 mode under them.
 */
static bool lang_usable(const char *lang)
{
	locale_t loc;
	bool utf8;

	if (strcmp(lang, "C") == 0 || strcmp(lang, "POSIX") == 0)
		return true;
	loc = newlocale(LC_ALL_MASK, lang, (locale_t)0);
	if (loc == (locale_t)0)
		return false;
	utf8 = strcmp(nl_langinfo_l(CODESET, loc), "UTF-8") == 0;
	freelocale(loc);
	return utf8;
}

static bool field_ok(const char *f, size_t n, const char *set, size_t max)
{
	return n > 0 && n <= max && strspn(f, set) >= n;
}

bool ssh_connection_valid(const char *value)
{
	static const char addr[] = "0123456789abcdefABCDEF.:";
	static const char digits[] = "0123456789";
	const char *p = value;
	size_t n;
	int field;

	for (field = 0; field < 4; field++) {
		n = strcspn(p, " ");
		if (!field_ok(p, n, field % 2 == 0 ? addr : digits, field % 2 == 0 ? 45 : 5))
			return false;
		p += n;
		if (field < 3) {
			if (*p != ' ')
				return false;
			p++;
		}
	}
	return *p == '\0';
}

static int dup_or_null(char **out, const char *value)
{
	*out = NULL;
	if (value == NULL)
		return 0;
	*out = strdup(value);
	return *out == NULL ? -ENOMEM : 0;
}

int shell_env_take(const char *const envp[], struct shell_inherited *in)
{
	const char *conn = env_value(envp, "SSH_CONNECTION");
	const char *lang = env_value(envp, "LANG");

	memset(in, 0, sizeof(*in));
	env_find_unsafe(envp, in->unsafe, sizeof(in->unsafe));
	if (conn != NULL && !ssh_connection_valid(conn))
		conn = NULL;
	if (lang != NULL && in->unsafe[0] == '\0' && !(lang_name_valid(lang) && lang_usable(lang)))
		lang = NULL;
	if (dup_or_null(&in->ssh_connection, conn) < 0 || dup_or_null(&in->lang, lang) < 0 ||
	    dup_or_null(&in->original_command, env_value(envp, "SSH_ORIGINAL_COMMAND")) < 0) {
		shell_env_release(in);
		return -ENOMEM;
	}
	return 0;
}

void shell_env_release(struct shell_inherited *in)
{
	free(in->ssh_connection);
	free(in->lang);
	free(in->original_command);
	in->ssh_connection = in->lang = in->original_command = NULL;
}

int shell_env_build(struct spawn_env *env, const struct shell_account *acct,
		    const struct shell_inherited *in, const char *original_command)
{
	int rc = 0;

	rc = rc ? rc : spawn_env_add(env, "PATH", "/usr/bin:/bin");
	rc = rc ? rc : spawn_env_add(env, "HOME", acct->home);
	rc = rc ? rc : spawn_env_add(env, "USER", acct->user);
	rc = rc ? rc : spawn_env_add(env, "LOGNAME", acct->user);
	rc = rc ? rc : spawn_env_add(env, "LANG", in->lang ? in->lang : ENV_LANG_DEFAULT);
	if (in->ssh_connection != NULL)
		rc = rc ? rc : spawn_env_add(env, "SSH_CONNECTION", in->ssh_connection);
	rc = rc ? rc : spawn_env_add(env, "SSH_ORIGINAL_COMMAND", original_command);
	/* rrsync is Python, which would otherwise import usercustomize and
	 * .pth files from HOME/.local: code of the user's choosing. */
	rc = rc ? rc : spawn_env_add(env, "PYTHONNOUSERSITE", "1");
	return rc;
}
