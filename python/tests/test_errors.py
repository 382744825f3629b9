"""Bad input arrives as nmc.ScenarioError (a ValueError) with the CLI's one-line message and
where it is: file, line, column, key. Nothing is written."""

from __future__ import annotations

import pytest

import nmc


def test_unknown_key_in_a_toml_text_names_line_and_key(small_imp, tmp_path):
    bad = small_imp.replace('duration = "30s"', 'duration = "30s"\nbogus = 3')
    with pytest.raises(nmc.ScenarioError) as e:
        nmc.run(bad, out=tmp_path / "never")
    err = e.value
    assert isinstance(err, ValueError)
    assert err.file == "<string>" and err.line == 5 and err.key == "bogus"
    assert "unknown field `bogus`" in str(err) and "\n" not in str(err)
    assert not (tmp_path / "never").exists()


def test_unknown_key_in_a_file(tmp_path, small_imp):
    path = tmp_path / "bad.toml"
    path.write_text(small_imp.replace("[network]", "[network]\nhopz = 3"))
    with pytest.raises(nmc.ScenarioError) as e:
        nmc.run(path)
    assert e.value.file == str(path) and e.value.line is not None and e.value.key == "hopz"


def test_bad_override_names_the_key():
    with pytest.raises(nmc.ScenarioError) as e:
        nmc.run("md1", seed=1, set={"network.nope": 3})
    assert e.value.key == "network.nope"
    assert str(e.value).startswith("--set network.nope=3:")


def test_wrong_unit_is_one_line():
    with pytest.raises(nmc.ScenarioError) as e:
        nmc.run("md1", seed=1, set={"duration": "10 parsecs"})
    assert "\n" not in str(e.value)


def test_unknown_scenario_name():
    with pytest.raises(nmc.ScenarioError, match="no built-in scenario"):
        nmc.run("no-such-scenario")


def test_missing_seed_is_bad_input():
    text = 'name = "x"\nmodel = "store-forward"\nduration = "1s"\n[network]\ntopology = { kind = "chain", nodes = 2, capacity = "50kbit/s", propagation = "1ms" }\n'
    with pytest.raises(nmc.ScenarioError):
        nmc.run(text)


def test_a_value_with_no_toml_form():
    with pytest.raises(nmc.ScenarioError, match="no TOML form"):
        nmc.run("md1", seed=1, set={"duration": object()})


def test_errors_share_a_base_class():
    assert issubclass(nmc.ScenarioError, nmc.NmcError)


def test_a_check_after_reading_names_line_and_key(tmp_path):
    # The model's own checks (here: a network of no nodes) name the line of the key they judged.
    text = nmc._nmc.builtin("golden-chain")
    path = tmp_path / "zero.toml"
    path.write_text(text.replace("nodes = 5", "nodes = 0"))
    line = text.splitlines().index("nodes = 5") + 1
    with pytest.raises(nmc.ScenarioError) as e:
        nmc.run(path, out=tmp_path / "out")
    assert (e.value.file, e.value.line, e.value.key) == (str(path), line, "network.nodes")
    assert str(e.value).startswith(f"{path}:{line}:1: network.nodes")
    assert not (tmp_path / "out").exists()
