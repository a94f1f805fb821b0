"""tilec.tune: the C API's tilec_tune from Python, without a GPU."""
import os

import pytest

import tilec
from conftest import ROOT

DECODE = os.path.join(ROOT, "examples", "gemm_decode_auto_sm90.tile")


def test_dry_run_lists_candidates():
    report = tilec.tune(DECODE, shapes=[(64, 2112, 7168)], dry_run=True,
                        budget_s=3)
    assert report["dry_run"] is True
    (result,) = report["results"]
    assert result["kernel"] == "gemm_decode_auto"
    assert result["bucket"] == [64, 2112, 7168]
    assert result["varied"] == "schedule, store"
    candidates = result["candidates"]
    assert candidates[0]["baseline"] is True
    assert 2 <= len(candidates) <= 6
    assert all(c["model_us"] > 0 for c in candidates)


def test_shapes_as_text_and_vary():
    report = tilec.tune(DECODE, shapes="64,2112,7168", vary="stages",
                        dry_run=True, budget_s=1)
    assert report["results"][0]["varied"] == "stages, schedule, store"


def test_bad_options_raise():
    with pytest.raises(ValueError, match="has 2 sizes"):
        tilec.tune(DECODE, shapes="64,2112", dry_run=True)
    with pytest.raises(ValueError, match="unknown item 'warps'"):
        tilec.tune(DECODE, shapes=[(64, 2112, 7168)], vary="warps",
                   dry_run=True)
    with pytest.raises(tilec.CompileError, match="fixed extent M = 64"):
        tilec.tune(DECODE, shapes=[(128, 2112, 7168)], dry_run=True)


def test_no_timing_without_a_gpu(monkeypatch):
    # The simulator times nothing; a machine with no driver says so too.
    try:
        report = tilec.tune(DECODE, shapes=[(64, 2112, 7168)], budget_s=1,
                            remember=False)
    except RuntimeError as e:
        assert "tilec tune times kernels on the GPU" in str(e)
    else:  # a GPU machine
        assert report["results"][0]["timed"] >= 1


def test_tune_gemm_varies_every_item_of_the_gemm_program():
    report = tilec.tune_gemm(64, 2112, 7168, sms=132, dry_run=True,
                             budget_s=2)
    (result,) = report["results"]
    assert result["varied"] == "tile, stages, schedule, store"
    assert result["kernel"] == "tilec_gemm_bf16_kk_sm_90a"
    # The rules' pick is the baseline: swap-AB split-K for this decode shape.
    assert "swap_ab" in result["candidates"][0]["variant"]


def test_no_tuned_source_without_a_remembered_winner(monkeypatch, tmp_path):
    # An empty tune cache (a GPU run of test_gpu_tune.py fills the
    # session's).
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    from tilec import _gemm
    source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K", 64,
                                     2112, 7168, 132)
    assert _gemm.tuned_source(source, 64, 2112, 7168) == (None, None)


def test_tune_gemm_block_scaled_tunes_the_fp8_program():
    report = tilec.tune_gemm(4096, 7168, 7168, dtype="e4m3", sms=132,
                             block_scales=True, sfa_m_major=True,
                             dry_run=True, budget_s=2)
    (result,) = report["results"]
    assert result["kernel"] == "tilec_gemm_fp8_block"
    # The rules' pick for an M-major SFA at M = 4096 is the baseline.
    assert result["candidates"][0]["variant"].startswith("256x128x128 s3")
    assert all(c["variant"].split("x")[2].startswith("128")
               for c in result["candidates"]), "BK is the scale block"
    with pytest.raises(ValueError, match="legal: 'e4m3' on 'sm_90a'"):
        tilec.tune_gemm(64, 128, 128, dtype="bf16", block_scales=True,
                        dry_run=True)


def test_tune_w4a16_varies_the_packed_weight_program():
    # The sm_80 program (the default only off Hopper: name the target, so
    # the test reads the same on any machine).
    report = tilec.tune_w4a16(16, 4096, 4096, sms=132, dry_run=True,
                              budget_s=2, arch="sm_80")
    (result,) = report["results"]
    assert result["kernel"].startswith("tilec_w4a16_bf16_u4z_g128_")
    assert result["varied"] == "tile, stages, schedule, store"
    variants = [c["variant"] for c in result["candidates"]]
    assert variants[0].startswith("16x64x128 s4 split_k(4)"), variants[0]
    assert any(v.startswith("16x") for v in variants[1:])


def test_tune_w4a16_on_hopper_varies_the_sm90_program():
    # tilec.gemm runs the sm_90a program on Hopper, so that is the one
    # tuned there: only its legal tiles (BM 64/128, BK 64, swapped).
    for fmt, zeros in (("u4", True), ("e4m3", False)):
        report = tilec.tune_w4a16(16, 2048, 4096, fmt=fmt, zeros=zeros,
                                  sms=132, dry_run=True, budget_s=4,
                                  arch="sm_90a")
        (result,) = report["results"]
        assert result["kernel"].startswith("tilec_w%da16_sm90_" %
                                           (4 if fmt == "u4" else 8))
        variants = [c["variant"] for c in result["candidates"]]
        assert len(variants) >= 4 and result["refused"] == 0, result
        assert all(" swap_ab" in v and v.split("x")[0] in ("64", "128")
                   for v in variants), variants


def test_explain_says_tuned_first():
    # tilec.gemm sets Kernel.tuned when it runs a remembered winner (GPU:
    # test_gpu_tune.py); explain() then leads with it.
    from tilec import _gemm
    source, _ = _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K", 64,
                                     2112, 7168, 132)
    kernel = tilec.compile(source)
    assert kernel.tuned is None
    assert not kernel.explain().startswith("tuned:")
    kernel.tuned = "64x64x64 s13 swap_ab split_k(2) tma_store (tuned ...)"
    lines = kernel.explain().splitlines()
    assert lines[0] == "tuned: " + kernel.tuned
    assert any("why =" in line for line in lines[1:])
    kernel.tuned = None


def test_gemm_program_is_the_library_writer(monkeypatch, tmp_path):
    # tilec_gemm_program (API 14) writes tilec.gemm's programs; without a
    # remembered winner (an empty cache: a GPU run of test_gpu_tune.py fills
    # the session's) tuned=True gives the rules' one.
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    from tilec import _gemm
    source, note = _gemm.gemm_program("sm_90a", "bf16", 64, 2112, 7168, 132)
    assert note is None
    assert source == _gemm.program_source("sm_90a", "bf16", "bf16", "K", "K",
                                          64, 2112, 7168, 132)[0]
    assert "schedule swap_ab split_k(2)" in source
    assert _gemm.gemm_program("sm_90a", "bf16", 64, 2112, 7168, 132,
                              tuned=True) == (source, None)
    fp8, _ = _gemm.gemm_program("sm_90a", "e4m3", 4096, 4096, 7168, 132,
                                block_scaled=True, sfa_m_major=True)
    assert "scale a  f32 block(1, 128) major(M)" in fp8
    with pytest.raises(ValueError, match=r"type i4 \(legal: bf16"):
        _gemm.gemm_program("sm_90a", "i4", 64, 64, 64)
    with pytest.raises(ValueError, match=r"request->b_major M \(legal: K, N\)"):
        _gemm.gemm_program("sm_90a", "bf16", 64, 64, 64, b_major="M")
    with pytest.raises(ValueError, match="M = 0"):
        _gemm.gemm_program("sm_90a", "bf16", 0, 64, 64)
