// How a host call reports an Error (gshmem/gshmem.hpp): one decision for the whole library,
// made by the error mode the program chose with gshmemx_set_error_mode.
#pragma once

#include <functional>
#include <string>

#include "gshmem/gshmem.hpp"

namespace gshmem {

// GSHMEMX_ERROR_ABORT (the default) or GSHMEMX_ERROR_THROW; process-wide.
int error_mode();
void set_error_mode(int mode);

// The one way to raise an Error. In GSHMEMX_ERROR_THROW mode it is thrown. Otherwise it is
// printed with the logger's prefix and the job ends: through `end_job` when given (the runtime's,
// which tells the launcher which PE failed and why, so every PE stops), else this process exits
// with status 1.
[[noreturn]] void raise(const Error& e,
                        const std::function<void(const std::string&)>& end_job = {});

}  // namespace gshmem
