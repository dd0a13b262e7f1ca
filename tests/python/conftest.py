"""Every test here runs on every PE at once (ctest starts pytest under gshmemrun), in the same
order, so the collective calls of a test meet. gshmem starts when pytest loads this file and ends
when the session does."""
import os

import pytest
import torch

import gshmem

torch.set_num_threads(1)
gshmem.init(device=os.environ.get("GSHMEM_TEST_DEVICE", "cpu"))


_status = {"exit": 0}


def pytest_ignore_collect(collection_path, config):
    # With a GPU heap (GSHMEM_TEST_DEVICE=cuda) only the CUDA tests apply: the others use CPU
    # tensors, which a GPU heap's calls refuse.
    if gshmem.device().type == "cuda" and collection_path.suffix == ".py":
        return collection_path.name not in ("test_cuda.py", "conftest.py")
    return None


def pytest_sessionfinish(session, exitstatus):
    _status["exit"] = int(exitstatus)


def pytest_unconfigure(config):
    # After the summary is printed. A failure on this PE must not leave the others waiting in a
    # collective: end the job.
    if _status["exit"] == 0:
        gshmem.finalize()
    elif gshmem.initialized():
        gshmem._C.global_exit(1)


@pytest.fixture
def me():
    return gshmem.my_pe()


@pytest.fixture
def n():
    return gshmem.n_pes()


@pytest.fixture
def dev():
    return gshmem.device()
