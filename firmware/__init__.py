"""The Pi daemon: board geometry, renderer, strip drivers, buttons and the composition root.

Layers, top to bottom:

* ``firmware.config``    TOML configuration with defaults, refused with line and reason.
* ``firmware.geometry``  lane/hole -> strip index, side -> lane.
* ``firmware.render``    snapshot -> :class:`firmware.frame.Frame` (pure; brightness, gamma, power cap).
* ``firmware.drivers``   ``spi``, ``ws281x`` and ``sim`` strips behind one 3-method protocol.
* ``firmware.buttons``   gpiozero buttons that only submit table commands.
* ``firmware.render_loop`` one thread: static frames on change, animations at a steady rate.
* ``firmware.daemon``    ``build()``/``serve()``/``main()``: the only place that reads the environment.

Around them: ``firmware.cli`` (``landsend serve``), ``firmware.sdnotify``
(systemd notify/watchdog), ``firmware.terminal`` (``--sim`` keys),
``firmware.png`` (PNG writer), ``firmware.picture`` (the README's board
picture) and ``firmware.selftest`` (checks a newly built board).
"""
