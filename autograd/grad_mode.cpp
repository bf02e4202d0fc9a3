// Thread-local gradient mode.
#include "autograd/grad_mode.h"

namespace strand {
namespace {
thread_local bool g_grad_enabled = true;
}

bool grad_enabled() { return g_grad_enabled; }
void set_grad_enabled(bool enabled) { g_grad_enabled = enabled; }

}  // namespace strand
