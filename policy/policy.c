/*
 * Loading the policy: postern.yaml and the generated DOAP module file it
 * names, both read through a trusted directory walk and checked on the open
 * fd (root-owned, not group/other-writable, size-capped), then parsed and
 * merged into one immutable struct policy.
 *
 * MUST fail the whole load on any error: a policy that is half read would
 * grant or refuse by accident. MUST NOT keep or return a partial policy.
 * A deferred load (policy_load_deferred) is postern.yaml whole, its module
 * list pending: until the merge succeeds no module is visible and
 * policy_may denies; a failed merge is final.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "policy_internal.h"
#include "policy_schema.h"
#include "safefile.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct module_entry *x = a;
	const struct module_entry *y = b;
	int d = strcmp(x->m.name, y->m.name);

	if (d != 0)
		return d;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->col > y->col) - (x->col < y->col);
}

/* Sort one file's entries by name; a name given twice is a duplicate key. */
static int sort_and_check(struct module_list *l, struct pst_err *e)
{
	size_t i;

	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	for (i = 1; i < l->n; i++)
		if (strcmp(l->v[i - 1].m.name, l->v[i].m.name) == 0)
			return pst_fail(e, EINVAL, "%s:%lu:%lu: modules: duplicate key '%s' "
					"(first at line %lu)", l->v[i].file, l->v[i].line,
					l->v[i].col, l->v[i].m.name, l->v[i - 1].line);
	return 0;
}

static int parse_file(struct policy *p, const char *buf, size_t len, const char *name,
		      bool generated, struct module_list *mods, struct pst_err *e)
{
	const char *base = strrchr(name, '/');
	struct schema_ctx c = { &p->arena, name, base ? base + 1 : name, e };
	struct ynode *root;
	int rc;

	if (len > POLICY_FILE_MAX)
		return pst_fail(e, EFBIG, "%s: larger than %u bytes", name, POLICY_FILE_MAX);
	rc = ytree_parse(buf, len, name, &p->arena, &root, e);
	if (rc < 0)
		return rc;
	if (generated) {
		rc = schema_doap_modules(&c, root, mods);
	} else {
		p->config_name = arena_strdup(&p->arena, c.source);
		if (p->config_name == NULL)
			return pst_fail(e, ENOMEM, "out of memory");
		rc = schema_config(&c, root, &p->settings, mods);
	}
	if (rc < 0)
		return rc;
	return sort_and_check(mods, e);
}

static int merge_one(struct policy *p, struct policy_module *out,
		     const struct module_entry *conf, const struct module_entry *doap,
		     bool settings_only, struct pst_err *e)
{
	if (doap != NULL)
		*out = doap->m;
	if (conf == NULL)
		return 0;
	out->name = conf->m.name;
	out->version_dir = conf->m.version_dir;
	out->signature = conf->m.signature;
	out->ci = conf->m.ci;
	out->nci = conf->m.nci;
	if (conf->has_open)
		out->open = conf->m.open;
	if (conf->has_maintainers || doap == NULL) {
		out->maintainers = conf->m.maintainers;
		out->source = p->config_name;
		out->overrides_doap = doap != NULL;
	}
	if (out->maintainers == NULL) {
		static const char *const none[] = { NULL };
		out->maintainers = none;
	}
	if (out->maintainers[0] == NULL && !out->open && !settings_only)
		return pst_fail(e, EINVAL, "%s:%lu:%lu: module %s: no maintainers and not open, "
				"and no generated DOAP entry for it (list maintainers, set "
				"open: true, or import its DOAP file)", conf->file, conf->line,
				conf->col, conf->m.name);
	return 0;
}

/* Both lists are sorted by name: a single merge pass builds the final array. */
static int merge(struct policy *p, const struct module_list *conf,
		 const struct module_list *doap, bool settings_only, struct pst_err *e)
{
	size_t i = 0, j = 0, n = 0;
	int rc;

	p->modules = arena_alloc(&p->arena, (conf->n + doap->n + 1) * sizeof(*p->modules));
	if (p->modules == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	while (i < conf->n || j < doap->n) {
		int d = i == conf->n ? 1 : j == doap->n ? -1
			: strcmp(conf->v[i].m.name, doap->v[j].m.name);
		const struct module_entry *c = d <= 0 ? &conf->v[i++] : NULL;
		const struct module_entry *g = d >= 0 ? &doap->v[j++] : NULL;

		rc = merge_one(p, &p->modules[n++], c, g, settings_only, e);
		if (rc < 0)
			return rc;
	}
	p->nmodules = n;
	return 0;
}

/* Where the generated DOAP module file comes from, if anywhere. */
struct doap_input {
	const char *buf;         /* a buffer given by the caller, or NULL */
	size_t len;
	const char *name;
	bool read_named;         /* read the file the config names */
	bool settings_only;      /* entries may rest on a DOAP file not read */
};

static int parse_doap(struct policy *p, const struct doap_input *in, struct module_list *doap,
		      struct pst_err *e)
{
	const char *path = p->settings.doap_modules;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (in->buf != NULL)
		return parse_file(p, in->buf, in->len, in->name, true, doap, e);
	if (!in->read_named || path == NULL)
		return 0;
	rc = policy_read_trusted(path, &buf, &len, e);
	if (rc == 0)
		rc = parse_file(p, buf, len, path, true, doap, e);
	free(buf);
	return rc;
}

void policy_settings_defaults(struct policy_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->incoming = "/srv/postern/incoming";
	s->tree = "/srv/postern/pub";
	s->state = POSTERN_STATEDIR;
	s->socket = "/run/postern/installd.sock";
	s->logins = POSTERN_LOGINS_DIR;
	s->limits.max_compressed = 2ull << 30;
	s->limits.max_uncompressed = 8ull << 30;
	s->limits.max_members = 200000;
	s->limits.max_ratio = 100;
	s->limits.time_limit = 600;
	s->limits.check_memory = 512ull << 20;
	s->limits.incoming_total = 8ull << 30;
	s->delete_window = 86400;
	s->mirror_sync_interval = 300;
	s->signature_keyrings = POSTERN_CONFDIR "/keyrings";
	s->signature_max_age = 7 * 86400;
	s->hook_doap_change_user = "nobody";
	s->doap_parse_user = "nobody";
}

/* postern.yaml alone: settings and explicit entries; the module list waits. */
static int parse_config(const char *buf, size_t len, const char *name, struct policy **out,
			struct pst_err *e)
{
	struct policy *p = calloc(1, sizeof(*p));
	const char *kept;
	int rc;

	*out = NULL;
	if (p == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	policy_settings_defaults(&p->settings);
	/* Entries keep the file name for the merge's messages, maybe much later. */
	kept = arena_strdup(&p->arena, name);
	rc = kept == NULL ? pst_fail(e, ENOMEM, "out of memory")
			  : parse_file(p, buf, len, kept, false, &p->conf, e);
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* The generated DOAP module list merged in: once, and a failure is final. */
static int merge_modules(struct policy *p, const struct doap_input *in, struct pst_err *e)
{
	struct module_list doap = { 0 };
	int rc;

	if (p == NULL || p->modules_loaded || p->modules_failed)
		return pst_fail(e, EINVAL, "the module list was already loaded or failed to load");
	rc = parse_doap(p, in, &doap, e);
	if (rc == 0)
		rc = merge(p, &p->conf, &doap, in->settings_only, e);
	free(doap.v);
	if (rc < 0) {
		p->modules_failed = true;
		p->nmodules = 0;
		return rc;
	}
	free(p->conf.v);
	memset(&p->conf, 0, sizeof(p->conf));
	p->modules_loaded = true;
	return 0;
}

static int build(const char *buf, size_t len, const char *name, const struct doap_input *in,
		 struct policy **out, struct pst_err *e)
{
	struct policy *p = NULL;
	int rc;

	*out = NULL;
	rc = parse_config(buf, len, name, &p, e);
	if (rc < 0)
		return rc;
	rc = merge_modules(p, in, e);
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int policy_parse(const char *buf, size_t len, const char *name, struct policy **out,
		 struct pst_err *e)
{
	const struct doap_input none = { NULL, 0, NULL, false, false };

	return build(buf, len, name, &none, out, e);
}

int policy_parse_merged(const char *buf, size_t len, const char *name,
			const char *doap_buf, size_t doap_len, const char *doap_name,
			struct policy **out, struct pst_err *e)
{
	const struct doap_input in = { doap_buf, doap_len, doap_name, false, false };

	return build(buf, len, name, &in, out, e);
}

int policy_parse_deferred(const char *buf, size_t len, const char *name, struct policy **out,
			  struct pst_err *e)
{
	return parse_config(buf, len, name, out, e);
}

int policy_merge_modules_text(struct policy *p, const char *doap_buf, size_t doap_len,
			      const char *doap_name, struct pst_err *e)
{
	const struct doap_input in = { doap_buf, doap_len, doap_name, false, false };

	return merge_modules(p, &in, e);
}

int policy_read_trusted(const char *path, char **buf, size_t *len, struct pst_err *e)
{
	static const struct sf_rule rule = {
		.type = S_IFREG, .uid = 0, .gid = SF_ANY_GID, .forbid = 022,
		.max_size = POLICY_FILE_MAX,
	};
	/* SF_TRUSTED_PATH vouches for the directories above; this for the last one. */
	static const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	const char *slash = path ? strrchr(path, '/') : NULL;
	char dir[POLICY_PATH_MAX];
	int dirfd, fd, rc;

	if (path == NULL || path[0] != '/' || slash == NULL || slash[1] == '\0' ||
	    (size_t)(slash - path) >= sizeof(dir))
		return pst_fail(e, EINVAL, "%s: expected an absolute file path",
				path ? path : "(null)");
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dirfd = sf_open_dir_path(dir[0] ? dir : "/", &dir_rule, SF_TRUSTED_PATH, e);
	if (dirfd < 0) {
		pst_err_prefix(e, "%s", path);
		return dirfd;
	}
	fd = sf_openat(dirfd, slash + 1, O_RDONLY, NULL, NULL, e);
	close(dirfd);
	if (fd < 0) {
		pst_err_prefix(e, "%s", path);
		return fd;
	}
	rc = sf_check_fd(fd, &rule, path, NULL, e);
	if (rc == 0) {
		rc = sf_read_all(fd, POLICY_FILE_MAX, buf, len, e);
		if (rc < 0)
			pst_err_prefix(e, "%s", path);
	}
	close(fd);
	return rc;
}

static int load_with(const char *path, const struct doap_input *in, struct policy **out,
		     struct pst_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = policy_read_trusted(path, &buf, &len, e);
	if (rc == 0)
		rc = in == NULL ? parse_config(buf, len, path, out, e)
				: build(buf, len, path, in, out, e);
	free(buf);
	return rc;
}

int policy_load(const char *path, struct policy **out, struct pst_err *e)
{
	struct policy *p = NULL;
	int rc;

	*out = NULL;
	rc = policy_load_deferred(path, &p, e);
	if (rc == 0)
		rc = policy_load_modules(p, e);
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int policy_load_deferred(const char *path, struct policy **out, struct pst_err *e)
{
	return load_with(path, NULL, out, e);
}

int policy_load_modules(struct policy *p, struct pst_err *e)
{
	const struct doap_input named = { NULL, 0, NULL, true, false };

	return merge_modules(p, &named, e);
}

bool policy_modules_loaded(const struct policy *p)
{
	return p != NULL && p->modules_loaded;
}

int policy_load_settings(const char *path, struct policy **out, struct pst_err *e)
{
	const struct doap_input none = { NULL, 0, NULL, false, true };

	return load_with(path, &none, out, e);
}

void policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	free(p->conf.v);
	arena_free(&p->arena);
	free(p);
}

const struct policy_settings *policy_settings(const struct policy *p)
{
	return &p->settings;
}

/* Until the module list is merged there are no modules to see: never half of them. */
size_t policy_module_count(const struct policy *p)
{
	return policy_modules_loaded(p) ? p->nmodules : 0;
}

const struct policy_module *policy_module_at(const struct policy *p, size_t i)
{
	return i < policy_module_count(p) ? &p->modules[i] : NULL;
}

static int cmp_name_module(const void *key, const void *elem)
{
	return strcmp(key, ((const struct policy_module *)elem)->name);
}

const struct policy_module *policy_module_find(const struct policy *p, const char *name)
{
	if (name == NULL || policy_module_count(p) == 0)
		return NULL;
	return bsearch(name, p->modules, p->nmodules, sizeof(*p->modules), cmp_name_module);
}
