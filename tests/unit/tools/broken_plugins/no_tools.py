"""Imports fine but defines no tools."""

VALUE = 1
