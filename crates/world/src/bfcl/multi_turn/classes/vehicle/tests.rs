//! Expected values are what BFCL's Python class returns for the same calls
//! (`PYTHONPATH=… python3 -c "from bfcl_eval…vehicle_control import VehicleControlAPI; …"`).

use super::*;
use crate::bfcl::multi_turn::pycall::parse_call;
use crate::bfcl::multi_turn::World;

fn world(config: &str, long_context: bool) -> World {
    let config: Py = serde_json::from_str(config).expect("test config is JSON");
    let initial = Py::Dict(vec![("VehicleControlAPI".to_string(), config)]);
    World::new(&["VehicleControlAPI".to_string()], &initial, long_context).expect("a known class")
}

/// Runs each call and checks the text BFCL's executor would return.
fn check(w: &mut World, calls: &[(&str, &str)]) {
    for (call, expected) in calls {
        assert_eq!(w.execute(&parse_call(call).expect("a call")), *expected, "{call}");
    }
}

fn run(w: &mut World, call: &str) -> String {
    w.execute(&parse_call(call).expect("a call"))
}

fn state_json(w: &World) -> String {
    let (_, attrs) = w.state().remove(0);
    Py::Dict(attrs).json_dumps()
}

fn attr(w: &World, name: &str) -> String {
    let (_, attrs) = w.state().remove(0);
    attrs.into_iter().find(|(k, _)| k == name).map(|(_, v)| v.json_dumps()).unwrap_or_default()
}

#[test]
fn starting_the_engine_needs_locked_doors_and_a_full_brake() {
    let mut w = world("{}", false);
    check(
        &mut w,
        &[
            (
                "startEngine('START')",
                r#"{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: driver, passenger, rear_left, rear_right"}"#,
            ),
            ("lockDoors(False, ['driver','passenger'])", r#"{"lockStatus": "locked", "remainingUnlockedDoors": 2}"#),
            (
                "startEngine('START')",
                r#"{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: rear_left, rear_right"}"#,
            ),
            (
                "lockDoors(unlock=False, door=['rear_left','rear_right','driver'])",
                r#"{"lockStatus": "locked", "remainingUnlockedDoors": 0}"#,
            ),
            ("startEngine('START')", r#"{"error": "Brake pedal needs to be pressed when starting the engine."}"#),
            ("pressBrakePedal(0.5)", r#"{"brakePedalStatus": "pressed", "brakePedalForce": 500.0}"#),
            ("startEngine('START')", r#"{"error": "Must press the brake fully before starting the engine."}"#),
            ("pressBrakePedal(1)", r#"{"brakePedalStatus": "pressed", "brakePedalForce": 1000.0}"#),
            ("startEngine('GO')", r#"{"error": "Invalid ignition mode."}"#),
            ("startEngine('START')", r#"{"engineState": "running", "fuelLevel": 0.0, "batteryVoltage": 12.6}"#),
            // STOP stops the engine first, then fails as an invalid mode.
            ("startEngine('STOP')", r#"{"error": "Invalid ignition mode."}"#),
            // A string is iterated letter by letter: KeyError 'd'.
            ("lockDoors(True, 'driver')", "Error during execution: 'd'"),
            // rear_left is unlocked before the unknown door raises.
            ("lockDoors(True, ['rear_left','trunk'])", "Error during execution: 'trunk'"),
        ],
    );
    assert_eq!(
        state_json(&w),
        r#"{"fuelLevel": 0.0, "batteryVoltage": 12.6, "engine_state": "stopped", "remainingUnlockedDoors": 1, "doorStatus": {"driver": "locked", "passenger": "locked", "rear_left": "unlocked", "rear_right": "locked"}, "acTemperature": 25.0, "fanSpeed": 50, "acMode": "auto", "humidityLevel": 50.0, "headLightStatus": "off", "parkingBrakeStatus": "released", "brakePedalStatus": "pressed", "distanceToNextVehicle": 50.0, "cruiseStatus": "inactive", "destination": "None", "frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, "rearLeftTirePressure": 30.0, "rearRightTirePressure": 30.0, "long_context": false}"#
    );
}

#[test]
fn the_door_count_is_recounted_from_the_configured_doors() {
    let w = world(r#"{"doorStatus": {"driver": "locked", "passenger": "unlocked"}, "remainingUnlockedDoors": 4}"#, false);
    assert_eq!(attr(&w, "remainingUnlockedDoors"), "3");
    assert_eq!(attr(&w, "doorStatus"), r#"{"driver": "locked", "passenger": "unlocked"}"#);
}

#[test]
fn fuel_and_its_conversions() {
    let mut w = world(r#"{"fuelLevel": 10.5}"#, false);
    check(
        &mut w,
        &[
            ("fillFuelTank(-1)", r#"{"error": "Fuel amount cannot be negative."}"#),
            ("fillFuelTank(40)", r#"{"error": "Cannot fill gas above the tank capacity."}"#),
            ("fillFuelTank(39.5)", r#"{"fuelLevel": 50.0}"#),
            ("fillFuelTank('5')", "Error during execution: '<' not supported between instances of 'str' and 'int'"),
            ("estimate_drive_feasibility_by_mileage(1000)", r#"{"canDrive": true}"#),
            ("estimate_drive_feasibility_by_mileage(1001)", r#"{"canDrive": false}"#),
            (
                "estimate_drive_feasibility_by_mileage('far')",
                "Error during execution: '<' not supported between instances of 'float' and 'str'",
            ),
            ("liter_to_gallon(30)", r#"{"gallon": 7.925160000000001}"#),
            ("gallon_to_liter(2.5)", r#"{"liter": 9.463525}"#),
            ("liter_to_gallon('3')", "Error during execution: can't multiply sequence by non-int of type 'float'"),
            ("liter_to_gallon(None)", "Error during execution: unsupported operand type(s) for *: 'NoneType' and 'float'"),
        ],
    );
    assert_eq!(attr(&w, "fuelLevel"), "50.0");
    let mut empty = world("{}", false);
    check(&mut empty, &[("fillFuelTank(5)", r#"{"fuelLevel": 5.0}"#)]);
}

#[test]
fn climate_control_stores_what_it_was_given() {
    let mut w = world("{}", false);
    check(
        &mut w,
        &[(
            "adjustClimateControl(72.5, unit='fahrenheit', fanSpeed=30, mode='cool')",
            r#"{"currentACTemperature": 72.5, "climateMode": "cool", "humidityLevel": 50.0}"#,
        )],
    );
    assert_eq!(attr(&w, "acTemperature"), "22.5");
    check(
        &mut w,
        &[
            ("adjustClimateControl(20, fanSpeed=101)", r#"{"error": "Fan speed must be between 0 and 100."}"#),
            (
                "adjustClimateControl(20, fanSpeed='high')",
                "Error during execution: '<=' not supported between instances of 'int' and 'str'",
            ),
            // The temperature is stored before the conversion fails.
            (
                "adjustClimateControl('warm', unit='fahrenheit')",
                "Error during execution: unsupported operand type(s) for -: 'str' and 'int'",
            ),
            (
                "displayCarStatus('climate')",
                r#"{"currentACTemperature": "warm", "fanSpeed": 30, "climateMode": "cool", "humidityLevel": 50.0}"#,
            ),
            (
                "adjustClimateControl(68, unit='fahrenheit')",
                r#"{"currentACTemperature": 68, "climateMode": "auto", "humidityLevel": 50.0}"#,
            ),
        ],
    );
    assert_eq!(attr(&w, "acTemperature"), "20.0");
    assert_eq!(attr(&w, "fanSpeed"), "50");
}

#[test]
fn random_readings_draw_as_python_does() {
    let mut w = world("{}", false);
    check(
        &mut w,
        &[
            ("get_current_speed()", r#"{"currentSpeed": 111.92365689097284}"#),
            ("get_outside_temperature_from_google()", r#"{"outsideTemperature": 31.29968928699752}"#),
            ("get_current_speed()", r#"{"currentSpeed": 44.51081620775468}"#),
            ("get_outside_temperature_from_weather_com()", r#"{"error": 404}"#),
        ],
    );
    let mut seeded = world(r#"{"random_seed": 42}"#, false);
    check(&mut seeded, &[("get_outside_temperature_from_google()", r#"{"outsideTemperature": 21.971339922894188}"#)]);
    let mut long = world("{}", true);
    let text = run(&mut long, "get_outside_temperature_from_google()");
    assert!(text.starts_with(r#"{"-1_day": {"windSpeed": 15.0, "humidity": 75.0, "precipitation": 5.0, "uvIndex": 6, "visibility": 8.0, "airPressure": 1010.0, "dewPoint": 10.0}, "-2_day""#), "{text}");
    assert!(text.ends_with(r#", "outsideTemperature": 36.63485703790535}"#), "{text}");
}

#[test]
fn lights_status_and_brakes() {
    let mut w = world(
        r#"{"doorStatus": {"driver": "locked", "passenger": "unlocked"}, "engineState": "running", "brakePedalForce": 1000.0}"#,
        false,
    );
    check(
        &mut w,
        &[
            ("setHeadlights('auto')", r#"{"headlightStatus": "off"}"#),
            ("setHeadlights('on')", r#"{"headlightStatus": "on"}"#),
            ("setHeadlights('dim')", r#"{"error": "Invalid headlight mode."}"#),
            ("displayCarStatus('doors')", r#"{"doorStatus": {"driver": "locked", "passenger": "unlocked"}}"#),
            ("displayCarStatus('fuel')", r#"{"fuelLevel": 0.0}"#),
            ("displayCarStatus('battery')", r#"{"batteryVoltage": 12.6}"#),
            ("displayCarStatus('headlights')", r#"{"headlightStatus": "on"}"#),
            ("displayCarStatus('parkingBrake')", r#"{"parkingBrakeStatus": "released", "parkingBrakeForce": 0.0, "slopeAngle": 0.0}"#),
            ("displayCarStatus('brakePedal')", r#"{"brakePedalStatus": "released", "brakePedalForce": 1000.0}"#),
            ("displayCarStatus('engine')", r#"{"engineState": "running"}"#),
            ("displayCarStatus('wipers')", r#"{"error": "Invalid option"}"#),
            ("activateParkingBrake('engage')", r#"{"parkingBrakeStatus": "engaged", "_parkingBrakeForce": 500.0, "_slopeAngle": 10.0}"#),
            ("displayCarStatus('parkingBrake')", r#"{"parkingBrakeStatus": "engaged", "parkingBrakeForce": 500.0, "slopeAngle": 10.0}"#),
            ("activateParkingBrake('release')", r#"{"parkingBrakeStatus": "released", "_parkingBrakeForce": 0.0, "_slopeAngle": 10.0}"#),
            ("activateParkingBrake('hold')", r#"{"error": "Invalid mode"}"#),
            ("releaseBrakePedal()", r#"{"brakePedalStatus": "released", "brakePedalForce": 0.0}"#),
            ("pressBrakePedal(1.5)", r#"{"error": "Pedal position must be between 0 and 1."}"#),
            ("pressBrakePedal('1')", "Error during execution: '<=' not supported between instances of 'int' and 'str'"),
            ("pressBrakePedal(0.25)", r#"{"brakePedalStatus": "pressed", "brakePedalForce": 250.0}"#),
            ("displayCarStatus('brakePedal')", r#"{"brakePedalStatus": "pressed", "brakePedalForce": 250.0}"#),
            ("pressBrakePedal(0)", r#"{"brakePedalStatus": "released", "brakePedalForce": 0.0}"#),
        ],
    );
    assert_eq!(attr(&w, "headLightStatus"), r#""on""#);
    assert_eq!(attr(&w, "parkingBrakeStatus"), r#""released""#);
    assert_eq!(attr(&w, "brakePedalStatus"), r#""released""#);
}

#[test]
fn long_context_adds_bfcls_filler_first_or_last() {
    let mut w = world("{}", true);
    let status = run(&mut w, "displayCarStatus('engine')");
    assert!(status.starts_with(r#"{"metadata": "Manufacturer: Audi; Model: A6; Year: 2024; Eng"#), "{status}");
    assert!(status.ends_with(r#"d.", "engineState": "stopped"}"#), "{status}");
    let brake = run(&mut w, "activateParkingBrake('engage')");
    assert!(brake.starts_with(r#"{"parkingBrakeInstruction": "The parking brake, al"#), "{brake}");
    assert!(brake.ends_with(r#"arkingBrakeStatus": "engaged", "_parkingBrakeForce": 500.0, "_slopeAngle": 10.0}"#), "{brake}");
    let distance = run(&mut w, "estimate_distance('74532', '83214')");
    assert!(distance.starts_with(r#"{"distance": 750.0, "intermediaryCities": ["New Hamilton", "Jacksonville", "Fort "#), "{distance}");
    assert!(distance.ends_with(r#", "Seaside Ridge", "Willowbrook Ridge"]}"#), "{distance}");
    let tires = run(&mut w, "check_tire_pressure()");
    assert!(tires.contains(r#""healthy_tire_pressure": true, "car_info": "Manufacturer: Audi; Model: A6;"#), "{tires}");
    assert_eq!(attr(&w, "long_context"), "true");
}

#[test]
fn long_context_data_is_bfcls() {
    let Py::Str(metadata) = &LONG_CONTEXT.car_status_metadata else { panic!("metadata is a string") };
    let Py::Str(instruction) = &LONG_CONTEXT.parking_brake_instruction else { panic!("instruction is a string") };
    let Py::List(cities) = &LONG_CONTEXT.intermediary_cities else { panic!("cities are a list") };
    // len() of each in Python.
    assert_eq!(
        (metadata.chars().count(), instruction.chars().count(), cities.len(), LONG_CONTEXT.long_weather.len()),
        (6503, 9710, 826, 15)
    );
}

#[test]
fn cruise_control_needs_the_engine_and_a_valid_speed() {
    let mut stopped = world("{}", false);
    check(&mut stopped, &[("setCruiseControl(60, True, 30)", r#"{"error": "Start the engine before activating the cruise control."}"#)]);
    assert_eq!(attr(&stopped, "distanceToNextVehicle"), "50.0");
    let mut w = world(r#"{"engineState": "running"}"#, false);
    check(&mut w, &[("setCruiseControl(62, True, 80)", r#"{"error": "Invalid speed"}"#)]);
    // The distance is stored before the speed is refused.
    assert_eq!(attr(&w, "distanceToNextVehicle"), "80.0");
    assert_eq!(attr(&w, "cruiseStatus"), r#""inactive""#);
    check(
        &mut w,
        &[
            ("setCruiseControl('60', True, '40.5')", r#"{"cruiseStatus": "active", "currentSpeed": 60.0, "distanceToNextVehicle": 40.5}"#),
            ("setCruiseControl(130, False, 20)", r#"{"cruiseStatus": "inactive", "currentSpeed": 130.0, "distanceToNextVehicle": 20.0}"#),
            ("setCruiseControl('fast', True, 20)", "Error during execution: could not convert string to float: 'fast'"),
            (
                "setCruiseControl(60, True, None)",
                "Error during execution: float() argument must be a string or a real number, not 'NoneType'",
            ),
        ],
    );
    assert_eq!(attr(&w, "distanceToNextVehicle"), "20.0");
}

#[test]
fn trips_navigation_and_tires() {
    let mut w = world("{}", false);
    check(
        &mut w,
        &[
            ("estimate_distance('74532', '83214')", r#"{"distance": 750.0}"#),
            ("estimate_distance('94016', '08540')", r#"{"distance": 1950.0}"#),
            ("estimate_distance('1', '2')", r#"{"error": "distance not found in database."}"#),
            ("get_zipcode_based_on_city('Sunset Valley')", r#"{"zipcode": "83462"}"#),
            ("get_zipcode_based_on_city('Atlantis')", r#"{"zipcode": "00000"}"#),
            ("set_navigation('1 Main St, Rivermist, CA')", r#"{"status": "Navigating to 1 Main St, Rivermist, CA"}"#),
            ("set_navigation(42)", r#"Error during execution: can only concatenate str (not "int") to str"#),
            ("display_log(['a', 'b'])", r#"{"log": ["a", "b"]}"#),
            ("find_nearest_tire_shop()", r#"{"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}"#),
            (
                "check_tire_pressure()",
                r#"{"frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, "rearLeftTirePressure": 30.0, "rearRightTirePressure": 30.0, "healthy_tire_pressure": true, "car_info": {}}"#,
            ),
        ],
    );
    assert_eq!(attr(&w, "destination"), "42");
    let mut low = world(
        r#"{"frontLeftTirePressure": 22.0, "frontRightTirePressure": 23.5, "rearLeftTirePressure": 30, "rearRightTirePressure": 29}"#,
        false,
    );
    check(
        &mut low,
        &[(
            "check_tire_pressure()",
            r#"{"frontLeftTirePressure": 22.0, "frontRightTirePressure": 23.5, "rearLeftTirePressure": 30, "rearRightTirePressure": 29, "healthy_tire_pressure": false, "car_info": {}}"#,
        )],
    );
}

#[test]
fn odd_arguments_fail_as_python_fails() {
    let mut w = world(r#"{"engineState": "running"}"#, false);
    check(
        &mut w,
        &[
            ("lockDoors(True, 5)", "Error during execution: 'int' object is not iterable"),
            ("lockDoors(False, [['driver']])", "Error during execution: unhashable type: 'list'"),
            ("setCruiseControl(' 1_0 ', 0, '_5')", "Error during execution: could not convert string to float: '_5'"),
            (
                "setCruiseControl(' 1_0 ', 0, 'inf')",
                r#"{"cruiseStatus": "inactive", "currentSpeed": 10.0, "distanceToNextVehicle": Infinity}"#,
            ),
        ],
    );
}
