"""tilec.layout: printing, offsets, pictures, errors."""
import pytest

import tilec


def test_layout_prints_in_cute_notation():
    assert str(tilec.layout("(4,2):(2,1)")) == "(4,2):(2,1)"
    assert str(tilec.layout("K_SW128<bf16>")) == "Sw<3,3,3> o (8,64):(64,1)"
    assert str(tilec.layout("coalesce((2,(1,6)):(1,(6,2)))")) == "12:1"


def test_offsets():
    assert tilec.layout("(4,2):(2,1)").offsets() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert len(tilec.layout("(8,16)")) == 128
    sw = tilec.layout("K_SW128<bf16>").offsets()
    assert sorted(sw) == list(range(512))  # a swizzle is a bijection


def test_svg():
    layout = tilec.layout("K_SW32<bf16>")
    svg = layout.svg()
    assert svg.lstrip().startswith("<") and "<svg" in svg
    assert layout._repr_svg_() == svg


def test_layout_error_has_the_column():
    with pytest.raises(tilec.LayoutError) as info:
        tilec.layout("composition(8:2, 3:1")
    assert info.value.column == 20
    assert "expected" in str(info.value)
