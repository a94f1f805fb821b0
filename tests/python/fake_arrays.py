"""Device arrays without a device: objects that describe themselves through
__cuda_array_interface__, for the launch checks that run before any launch."""

BASE = 0x7f0000000000


class Fake:
    """A CUDA array as __cuda_array_interface__ describes it."""

    def __init__(self, shape, typestr="<f2", strides=None, ptr=BASE):
        size = int(typestr[2:])
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "version": 3,
            "data": (ptr, False),
            "strides": None if strides is None else
            tuple(s * size for s in strides)}
