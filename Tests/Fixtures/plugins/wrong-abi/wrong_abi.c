/* A plugin that claims an ABI version this workbench does not speak: the
   loader must skip it by name and go on. */
#include <stddef.h>

#include "workbench_plugin.h"

static const wb_plugin plugin = {
    .abi_version = 999u,
    .name = "wrong-abi",
    .version = "0.0.1",
    .estimator_count = 0,
    .estimators = NULL,
};

const wb_plugin *workbench_plugin(void) { return &plugin; }
