/*
 * policy_load's file checks on real files: root-owned, not group/other
 * writable, no symlink, trusted directories all the way, size cap, and the
 * generated DOAP module file held to the same rules. Needs root (chown).
 *
 * Usage: test_policy_load BASE_DIR (a directory whose every ancestor is
 * root-owned and not group/other-writable, e.g. inside the build tree).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

#define OTHER_UID 54321

static char dir[512];

static void put(const char *name, const char *text, mode_t mode, uid_t uid)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchown(fd, uid, 0), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static char *at(const char *name)
{
	static char path[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void config_with_doap(const char *doap_name)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "doap_modules: %s\nmodules:\n  gtk:\n    maintainers: [otte]\n"
		 "  gnome-shell:\n    version_dir: major\n", at(doap_name));
	put("postern.yaml", text, 0644, 0);
}

static void load_refused(const char *path, const char *want)
{
	struct policy *p = (struct policy *)&p;
	struct pst_err e = { "" };

	assert_int_not_equal(policy_load(path, &p, &e), 0);
	assert_null(p);
	if (strstr(e.msg, want) == NULL)
		fail_msg("'%s' does not contain '%s'", e.msg, want);
}

static void test_good_files_load_and_merge(void **state)
{
	struct policy *p;
	struct pst_err e;
	char why[256];

	(void)state;
	config_with_doap("doap-modules.yaml");
	put("doap-modules.yaml", "modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
	    "    maintainers: [fmuellner]\n", 0644, 0);
	if (policy_load(at("postern.yaml"), &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_int_equal(policy_may(p, "fmuellner", POLICY_INSTALL, "gnome-shell", why,
				    sizeof(why)), POLICY_MAINTAINER);
	assert_string_equal(why, "fmuellner is a maintainer of gnome-shell (from gnome-shell.doap)");
	policy_free(p);
	/* policy_load_settings does not need the generated file. */
	unlink(at("doap-modules.yaml"));
	if (policy_load_settings(at("postern.yaml"), &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_string_equal(policy_settings(p)->doap_modules, at("doap-modules.yaml"));
	policy_free(p);
	load_refused(at("postern.yaml"), "doap-modules.yaml: cannot open");
}

/* The two-step load on real files: postern.yaml at once, the generated file
 * with its own checks when asked for, the same answers as policy_load. */
static void test_deferred_load(void **state)
{
	struct policy *p;
	struct pst_err e;
	char why[256];

	(void)state;
	config_with_doap("doap-modules.yaml");
	put("doap-modules.yaml", "modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
	    "    maintainers: [fmuellner]\n", 0644, 0);
	if (policy_load_deferred(at("postern.yaml"), &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_false(policy_modules_loaded(p));
	assert_int_equal(policy_may(p, "fmuellner", POLICY_INSTALL, "gnome-shell", NULL, 0),
			 POLICY_DENY);
	if (policy_load_modules(p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_int_equal(policy_may(p, "fmuellner", POLICY_INSTALL, "gnome-shell", why,
				    sizeof(why)), POLICY_MAINTAINER);
	assert_string_equal(why, "fmuellner is a maintainer of gnome-shell (from gnome-shell.doap)");
	policy_free(p);

	/* A generated file that fails its checks fails the second step with
	 * policy_load's message, and the policy stays without modules. */
	put("doap-modules.yaml", "modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
	    "    maintainers: [fmuellner]\n", 0664, 0);
	load_refused(at("postern.yaml"), "mode 0664 is too open");
	if (policy_load_deferred(at("postern.yaml"), &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_int_not_equal(policy_load_modules(p, &e), 0);
	assert_non_null(strstr(e.msg, "mode 0664 is too open"));
	assert_int_equal(policy_module_count(p), 0);
	assert_int_equal(policy_may(p, "fmuellner", POLICY_INSTALL, "gnome-shell", NULL, 0),
			 POLICY_DENY);
	policy_free(p);
	unlink(at("doap-modules.yaml"));
	if (policy_load_deferred(at("postern.yaml"), &p, &e) != 0)
		fail_msg("%s", e.msg);
	assert_int_not_equal(policy_load_modules(p, &e), 0);
	assert_non_null(strstr(e.msg, "doap-modules.yaml: cannot open"));
	policy_free(p);
	/* postern.yaml's own checks are not deferred. */
	put("postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0664, 0);
	assert_int_not_equal(policy_load_deferred(at("postern.yaml"), &p, &e), 0);
	assert_null(p);
}

static void test_config_checks(void **state)
{
	(void)state;
	put("postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0664, 0);
	load_refused(at("postern.yaml"), "mode 0664 is too open");
	put("postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0646, 0);
	load_refused(at("postern.yaml"), "mode 0646 is too open");
	put("postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0644, OTHER_UID);
	load_refused(at("postern.yaml"), "owned by uid 54321, expected uid 0");
	put("real.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0644, 0);
	unlink(at("postern.yaml"));
	assert_int_equal(symlink(at("real.yaml"), at("postern.yaml")), 0);
	load_refused(at("postern.yaml"), "symlink");
	unlink(at("postern.yaml"));
	assert_int_equal(mkdir(at("postern.yaml"), 0755), 0);
	load_refused(at("postern.yaml"), "is a directory, expected a regular file");
	rmdir(at("postern.yaml"));
	load_refused("postern.yaml", "expected an absolute file path");
	load_refused(at("missing.yaml"), "cannot open");
}

static void test_untrusted_directory(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("open"), 0755), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	put("open/postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0644, 0);
	load_refused(at("open/postern.yaml"), "open: mode 0777 is too open");
	assert_int_equal(mkdir(at("open/sub"), 0755), 0);
	put("open/sub/postern.yaml", "modules:\n  gtk:\n    maintainers: [otte]\n", 0644, 0);
	load_refused(at("open/sub/postern.yaml"), "untrusted directory on the way");
	unlink(at("open/sub/postern.yaml"));
	rmdir(at("open/sub"));
	unlink(at("open/postern.yaml"));
	rmdir(at("open"));
}

static void test_generated_file_checks(void **state)
{
	static const char doap[] = "modules:\n  gnome-shell:\n    source: gnome-shell.doap\n"
				   "    maintainers: [fmuellner]\n";

	(void)state;
	config_with_doap("doap-modules.yaml");
	put("doap-modules.yaml", doap, 0644, OTHER_UID);
	load_refused(at("postern.yaml"), "owned by uid 54321");
	put("doap-modules.yaml", doap, 0666, 0);
	load_refused(at("postern.yaml"), "too open");
	put("doap-modules.yaml", "modules:\n  gnome-shell:\n    maintainers: [fmuellner]\n", 0644, 0);
	load_refused(at("postern.yaml"), "doap-modules.yaml:2:3: module gnome-shell: a generated "
		     "entry needs maintainers and source");
	unlink(at("doap-modules.yaml"));
}

static void test_size_cap(void **state)
{
	size_t size = 4u * 1024 * 1024 + 1;
	char *big = malloc(size + 1);

	(void)state;
	assert_non_null(big);
	memset(big, '#', size);
	big[size] = '\0';
	put("postern.yaml", big, 0644, 0);
	free(big);
	load_refused(at("postern.yaml"), "more than the limit");
	unlink(at("postern.yaml"));
}

static int cleanup(void **state)
{
	(void)state;
	unlink(at("postern.yaml"));
	unlink(at("real.yaml"));
	unlink(at("doap-modules.yaml"));
	return rmdir(dir) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_files_load_and_merge),
		cmocka_unit_test(test_deferred_load),
		cmocka_unit_test(test_config_checks),
		cmocka_unit_test(test_untrusted_directory),
		cmocka_unit_test(test_generated_file_checks),
		cmocka_unit_test(test_size_cap),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_policy_load BASE_DIR\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (files owned by root and by others)\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/ptpol-load-XXXXXX", argv[1]);
	if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0) {
		perror("test_policy_load: mkdtemp");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, cleanup);
}
