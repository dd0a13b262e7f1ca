#include "perftest/pt2pt/rma_bw.hpp"

int main(int argc, char** argv) {
  return perftest::rma_bw_main(argc, argv, perftest::RmaDirection::Put);
}
