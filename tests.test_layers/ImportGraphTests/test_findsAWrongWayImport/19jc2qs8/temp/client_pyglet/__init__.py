import pyglet
