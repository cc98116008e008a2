/*
 * test_exports MODULE: pam_postern.so loads with every symbol resolved
 * (RTLD_NOW), exports pam_sm_authenticate and pam_sm_setcred, and none of
 * its internals nor any other PAM entry point. test-exports.sh checks the
 * complete dynamic symbol table with nm.
 */
#include <dlfcn.h>
#include <stdio.h>

static const char *const exported[] = { "pam_sm_authenticate", "pam_sm_setcred" };
static const char *const hidden[] = {
	"pam_sm_acct_mgmt", "pam_sm_open_session", "pam_sm_close_session",
	"pam_sm_chauthtok", "totp_verify", "totp_record_parse", "totp_store_read",
	"totp_store_write", "code_input_check", "ssh_auth_info_keys", "pam_cfg_init",
	"audit_emit", "audit_set_writer", "sf_openat", "sf_write_atomic",
};

int main(int argc, char **argv)
{
	unsigned n = 0;
	int failed = 0;
	void *h;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: test_exports MODULE\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	printf("%s %u - dlopen(RTLD_NOW) %s\n", h ? "ok" : "not ok", ++n, h ? "" : dlerror());
	if (h == NULL) {
		printf("1..%u\n", n);
		return 1;
	}
	for (i = 0; i < sizeof(exported) / sizeof(exported[0]); i++) {
		int found = dlsym(h, exported[i]) != NULL;
		failed |= !found;
		printf("%s %u - %s exported\n", found ? "ok" : "not ok", ++n, exported[i]);
	}
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		int found = dlsym(h, hidden[i]) != NULL;
		failed |= found;
		printf("%s %u - %s not exported\n", found ? "not ok" : "ok", ++n, hidden[i]);
	}
	dlclose(h);
	printf("1..%u\n", n);
	return failed;
}
