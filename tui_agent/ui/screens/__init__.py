"""The app's screens: chat and the tool-approval modal."""
