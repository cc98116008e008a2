/*
 * Builds <state>/history/index (history.h) from <state>/ledger (ledger_dir_fd
 * holds it; state_fd is <state>/history): in index.new, every file
 * fsynced, then renamed into place, so the index is either
 * complete or absent. A leftover index.new (a crash during a build) is
 * emptied and built again.
 */
#ifndef POSTERN_INDEX_BUILD_H
#define POSTERN_INDEX_BUILD_H

#include <sys/types.h>

#include "errmsg.h"

int index_build(int ledger_dir_fd, int state_fd, struct pst_err *e);

#endif
