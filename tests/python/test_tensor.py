"""strand.Tensor through DLPack: numpy and torch see the same memory, both ways."""
import gc

import numpy as np
import pytest

import strand


def test_a_tensor_views_a_numpy_array():
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    tensor = strand.from_numpy(array)
    assert tensor.shape == [3, 4] and tensor.dtype == "float32" and tensor.device == "cpu"
    assert tensor.data_ptr == array.ctypes.data
    view = tensor.numpy()
    assert view.ctypes.data == array.ctypes.data
    array[1, 2] = 100
    assert view[1, 2] == 100
    assert "float32 (3, 4)" in repr(tensor)


def test_a_tensor_keeps_the_array_alive():
    array = np.arange(5, dtype=np.int64)
    tensor = strand.Tensor.from_dlpack(array)
    del array
    gc.collect()
    np.testing.assert_array_equal(tensor.numpy(), np.arange(5))


def test_strided_views_keep_their_strides():
    array = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::2]
    tensor = strand.from_numpy(array)
    assert tensor.shape == [4, 3] and tensor.strides == [6, 2]
    np.testing.assert_array_equal(np.from_dlpack(tensor), array)


def test_every_strand_dtype_round_trips():
    for dtype in (np.float32, np.float64, np.uint8, np.int32, np.int64):
        array = np.arange(6, dtype=dtype)
        back = np.from_dlpack(strand.from_numpy(array))
        assert back.dtype == dtype and back.ctypes.data == array.ctypes.data


def test_torch_sees_a_tensor_without_a_copy():
    torch = pytest.importorskip("torch")
    array = np.random.default_rng(0).normal(size=(2, 4, 8)).astype(np.float32)
    tensor = strand.from_numpy(array)
    as_torch = torch.from_dlpack(tensor)
    assert as_torch.data_ptr() == array.ctypes.data
    assert as_torch.shape == (2, 4, 8) and as_torch.dtype == torch.float32
    source = torch.arange(10, dtype=torch.int32)
    back = strand.from_torch(source)
    assert back.data_ptr == source.data_ptr() and back.dtype == "int32"
    source[3] = 99
    assert back.numpy()[3] == 99


def test_unsupported_arrays_are_refused():
    with pytest.raises(strand.ConfigError, match="dtype float16 has no strand counterpart"):
        strand.from_numpy(np.zeros(3, dtype=np.float16))
    with pytest.raises(strand.ConfigError, match="expected an array"):
        strand.from_numpy("not an array")
    with pytest.raises(strand.ConfigError, match="bool"):
        strand.from_numpy(np.zeros(3, dtype=bool))


def test_cuda_tensors_when_built_with_cuda():
    torch = pytest.importorskip("torch")
    if not strand.cuda_build or not torch.cuda.is_available():
        pytest.skip("needs a CUDA build of strand and a GPU")
    source = torch.arange(16, dtype=torch.float32, device="cuda")
    tensor = strand.from_torch(source)
    assert tensor.device == "cuda:0" and tensor.data_ptr == source.data_ptr()
    back = torch.from_dlpack(tensor)
    assert back.device.type == "cuda" and back.data_ptr() == source.data_ptr()
    np.testing.assert_array_equal(tensor.to("cpu").numpy(), np.arange(16, dtype=np.float32))
