// Bandwidth of non-blocking puts or gets from PE 0 to PE 1, next to a single-thread memcpy of the
// same sizes in the same loop on PE 0: the mapped-peer path is a copy, so memcpy is its ceiling.
#pragma once

namespace perftest {

enum class RmaDirection { Put, Get };

int rma_bw_main(int argc, char** argv, RmaDirection dir);

}  // namespace perftest
